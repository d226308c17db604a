"""``gfbgcn train`` over the estimator: the settings resolved once per run, the arguments read
and never written, and the same graph as :meth:`TextGCNClassifier.fit_corpus` for a benchmark
and for a corpus file (the benchmark rule is the library's)."""

from __future__ import annotations

import copy
import json
import sys
from collections import Counter
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest
import torch

from gfbgcn import TextGCNClassifier
from gfbgcn.cli import build_parser, main
from gfbgcn.cli.train import train
from gfbgcn.core import device as core_device
from gfbgcn.text.corpus.benchmarks import load_corpus
from gfbgcn.text.estimator import classifier as classifier_module
from gfbgcn.text.estimator import settings as settings_module
from tests.core.test_extras import _block
from tests.robustness.conftest import FAST, documents, write_csv
from tests.text.toydata import write_topic_csv

SMALL = ["--epochs", "2", "--hidden", "4", "--quiet", "--threads", "1"]


def _graph_record(out: Path) -> dict[str, Any]:
    return json.loads((out / "config.json").read_text(encoding="utf-8"))["graph"]


def _as_recorded(graph) -> dict[str, Any]:
    return {"key": graph.key, **asdict(graph.config), "tokenizer": graph.tokenizer}


@pytest.mark.realdata
def test_a_benchmark_gets_the_same_graph_from_the_cli_and_from_fit_corpus(tmp_path,
                                                                         monkeypatch, capsys):
    monkeypatch.setenv("GFBGCN_CACHE", str(tmp_path / "cache"))
    assert main(["train", "--dataset", "r8", *SMALL, "--out", str(tmp_path / "run")]) == 0
    clf = TextGCNClassifier(epochs=2, hidden=4, baseline=False)
    graph = clf.fit_corpus(load_corpus("r8")).graph_
    assert graph is not None
    assert _graph_record(tmp_path / "run") == _as_recorded(graph)
    # the paper's graph: its tokenizer, English stop words, words seen 5 times or more
    assert (graph.tokenizer, graph.config.stop_words, graph.config.min_freq) == (
        "textgcn", "english", 5)


def test_a_file_gets_the_same_graph_from_the_cli_and_from_fit_corpus(tmp_path, monkeypatch,
                                                                    capsys):
    monkeypatch.setenv("GFBGCN_CACHE", str(tmp_path / "cache"))
    path = write_topic_csv(tmp_path / "topics.csv")
    assert main(["train", "--dataset", str(path), *SMALL, "--no-baseline",
                 "--out", str(tmp_path / "run")]) == 0
    graph = TextGCNClassifier(epochs=2, hidden=4).fit_corpus(load_corpus(path)).graph_
    assert graph is not None
    assert _graph_record(tmp_path / "run") == _as_recorded(graph)
    # a small corpus that is not a benchmark: words of any script, no stop words, min_freq 2
    assert graph.tokenizer == "unicode"
    assert (graph.config.stop_words, graph.config.min_freq) == (None, 2)


def _count_calls(monkeypatch, counts: Counter, owner: Any, name: str,
                 key: str | None = None) -> None:
    original = getattr(owner, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        counts[key or name] += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)


@pytest.mark.parametrize("extra", [[], ["--auto", "--budget", "1"]])
def test_a_train_run_resolves_its_settings_and_its_device_once(tmp_path, monkeypatch, capsys,
                                                               extra):
    counts: Counter = Counter()
    _count_calls(monkeypatch, counts, classifier_module, "resolve_settings")
    _count_calls(monkeypatch, counts, settings_module, "train_config")
    _count_calls(monkeypatch, counts, settings_module.FitSettings, "graph_config")
    resolve = core_device.resolve_device

    def resolving(spec: Any = "auto") -> torch.device:
        # a device already resolved (a torch.device passed down) is only checked again
        if not isinstance(spec, torch.device):
            counts["resolve_device"] += 1
        return resolve(spec)

    for module in list(sys.modules.values()):  # every module that imported it by name
        if getattr(module, "__name__", "").startswith("gfbgcn") and \
                getattr(module, "resolve_device", None) is resolve:
            monkeypatch.setattr(module, "resolve_device", resolving)
    path = write_topic_csv(tmp_path / "topics.csv")
    assert main(["train", "--dataset", str(path), *SMALL, "--no-cache", *extra]) == 0
    assert counts == {"resolve_settings": 1, "train_config": 1, "graph_config": 1,
                      "resolve_device": 1}


def test_the_train_verb_reads_its_arguments_and_never_writes_them(tmp_path, capsys):
    path = write_topic_csv(tmp_path / "topics.csv")
    argv = ["train", "--dataset", str(path), *SMALL, "--no-cache", "--device", "auto",
            "--batch-size", "8", "--out", str(tmp_path / "run")]
    args = build_parser(argv).parse_args(argv)
    before = copy.deepcopy(vars(args))
    assert train(args) == 0
    assert vars(args) == before  # --device auto stays auto; --fanout stays unset (None)


# ---- what a run leaves to look at: figures and TensorBoard --------------------------------


def test_train_draws_the_run_s_figures_and_logs_its_epochs_for_tensorboard(cli, tmp_path):
    data = write_csv(tmp_path / "corpus.csv", documents())
    result = cli("train", "--dataset", data, *FAST, "--out", tmp_path / "run",
                 "--tensorboard", tmp_path / "tb")
    assert result.status == 0, result.err
    (fit,) = (tmp_path / "tb").iterdir()
    assert f"tensorboard: logging the epochs to {fit} (view: tensorboard --logdir " \
        f"{tmp_path / 'tb'})" in result.out
    assert list(fit.glob("events.out.tfevents.*"))
    assert {"curves.png", "confusion.png"} <= {p.name for p in (tmp_path / "run").iterdir()}
    assert "note:" not in result.err


def test_without_matplotlib_the_run_is_written_with_a_note_on_its_figures(cli, tmp_path,
                                                                         monkeypatch):
    _block(monkeypatch, "matplotlib")
    data = write_csv(tmp_path / "corpus.csv", documents())
    result = cli("train", "--dataset", data, *FAST, "--out", tmp_path / "run")
    assert result.status == 0, result.err
    assert not list((tmp_path / "run").glob("*.png"))
    assert (tmp_path / "run" / "metrics.json").exists()
    notes = [line for line in result.err.splitlines() if line.startswith("note: no figures")]
    assert notes == [f"note: no figures (training curves, confusion matrix) in "
                     f"{tmp_path / 'run'}: matplotlib is not installed (pip install "
                     f"'gfbgcn[figures]'; then gfbgcn.draw_run('{tmp_path / 'run'}') draws "
                     "them)"]


def test_without_tensorboard_train_stops_in_one_line_before_reading_the_corpus(cli, tmp_path,
                                                                             monkeypatch):
    _block(monkeypatch, "tensorboard")
    data = write_csv(tmp_path / "corpus.csv", documents())
    result = cli("train", "--dataset", data, *FAST, "--tensorboard", tmp_path / "tb")
    result.assert_user_error("TensorBoard logging needs tensorboard: pip install "
                             "'gfbgcn[tensorboard]'")
    assert "documents" not in result.out and not (tmp_path / "tb").exists()
    help_text = " ".join(cli("train", "--help").out.split())
    assert "--tensorboard DIR log each epoch's losses" in help_text
    assert "tensorboard --logdir DIR" in help_text and "curves.png" in help_text

"""``--device`` on every verb that computes: an absent GPU fails in one line (exit 2) before
any work, and an explicit ``--device cpu`` runs train, predict and every reproduction, recording
the device in every record it writes."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import gfbgcn
from gfbgcn.cli import main
from gfbgcn.reproduce.entity import reproduction as entity_reproduction
from gfbgcn.reproduce.harness import Invocations, Layout
from tests.entity.conftest import toy_entities
from tests.graph_classification.toydata import write_tu
from tests.text.toydata import write_topic_csv

SRC = Path(__file__).resolve().parents[1] / "src"


# ---- an absent GPU ---------------------------------------------------------------------------


def _verbs(tmp_path: Path) -> dict[str, list[str]]:
    """Each computing verb, with inputs that do not exist: the device check must come first."""
    out = ["--out", str(tmp_path / "out")]
    missing = str(tmp_path / "missing.csv")
    return {
        "train": ["train", "--dataset", missing, *out],
        "predict": ["predict", str(tmp_path / "no-model"), "--text", "x"],
        "reproduce text": ["reproduce", "text", "--datasets", "r8", *out],
        "reproduce inductive": ["reproduce", "inductive", "--datasets", "r8", *out],
        "reproduce own-corpora": ["reproduce", "own-corpora", "--datasets", "r8", *out],
        "reproduce entity": ["reproduce", "entity", "--datasets", "aifb", "--offline", *out],
        "reproduce graphs": ["reproduce", "graphs", "--datasets", "MUTAG", *out],
    }


@pytest.mark.parametrize("verb", ["train", "predict", "reproduce text", "reproduce inductive",
                                  "reproduce own-corpora", "reproduce entity",
                                  "reproduce graphs"])
@pytest.mark.parametrize("spec", ["cuda", "cuda:1"])
def test_cuda_without_a_gpu_is_one_line_and_exit_2(verb, spec, tmp_path, capsys) -> None:
    assert not torch.cuda.is_available()  # tests/conftest.py hides any GPU from this test
    assert main([*_verbs(tmp_path)[verb], "--device", spec]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"error: device '{spec}' asked for, but "
                                                   "torch sees no CUDA GPU here")
    assert err.rstrip().endswith("use --device cpu or auto")  # the option, not the parameter
    assert not (tmp_path / "out").exists()  # nothing was started


def test_unknown_device_is_a_usage_error(tmp_path, capsys) -> None:
    assert main([*_verbs(tmp_path)["train"], "--device", "gpu"]) == 2
    assert capsys.readouterr().err == "error: unknown device 'gpu'; use auto, cpu, cuda or " \
                                      "cuda:N\n"


def test_cuda_without_a_gpu_from_the_shell(tmp_path) -> None:
    """The real command: one line on stderr, no traceback, exit status 2, nothing read."""
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "PYTHONPATH": str(SRC)}
    proc = subprocess.run(
        [sys.executable, "-m", "gfbgcn", "train", "--dataset", "r8", "--device", "cuda",
         "--data-dir", str(tmp_path / "nowhere")],
        capture_output=True, text=True, env=env, timeout=120,
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and "no CUDA GPU" in proc.stderr
    assert proc.stdout == ""


# ---- --device cpu through every verb ---------------------------------------------------------


def test_train_save_predict_load_on_cpu(tmp_path, capsys) -> None:
    corpus = write_topic_csv(tmp_path / "own.csv")
    run, model_dir = tmp_path / "run", tmp_path / "model"
    assert main(["train", "--dataset", str(corpus), "--model", "gcn", "--min-freq", "1",
                 "--hidden", "8", "--epochs", "3", "--quiet", "--no-cache", "--threads", "1",
                 "--device", "cpu", "--out", str(run), "--save", str(model_dir)]) == 0
    assert "ms/epoch on cpu" in capsys.readouterr().out
    assert json.loads((run / "config.json").read_text())["device"] == "cpu"
    assert json.loads((run / "metrics.json").read_text())["device"] == "cpu"
    saved = json.loads((model_dir / "config.json").read_text())
    assert saved["metrics"]["device"] == "cpu"  # where it was trained
    assert main(["predict", str(model_dir), "--text", "goal match team", "--device", "cpu"]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].startswith("row,label,probability") and len(printed) == 2
    model = gfbgcn.load(model_dir, device="cpu")
    assert model.device == torch.device("cpu")
    assert model.predict(["goal match team"]).labels == [printed[1].split(",")[1]]


@pytest.mark.parametrize("task", ["text", "inductive"])
def test_reproduce_text_and_inductive_on_cpu(task, tmp_path, toy_benchmark) -> None:
    out = tmp_path / "results"
    assert main(["reproduce", task, "--datasets", "r8", "--models", "gcn", "--seeds", "1",
                 "--epochs", "2", "--device", "cpu", "--out", str(out)]) == 0
    (record,) = [json.loads(p.read_text()) for p in (out / "raw" / task).glob("*=*.json")]
    assert record["device"] == "cpu"
    (entry,) = Invocations.load(Layout(out, task))
    assert entry["device"] == "cpu"
    assert "1 worker, on cpu)" in (out / f"{task}.md").read_text()


def test_reproduce_graphs_on_cpu(tmp_path) -> None:
    write_tu(tmp_path / "data", "TOY")
    out = tmp_path / "results"
    assert main(["reproduce", "graphs", "--data-dir", str(tmp_path / "data"), "--datasets",
                 "TOY", "--models", "gfb-gcn", "--hiddens", "4", "--layers", "1", "--folds", "3",
                 "--fold-limit", "1", "--epochs", "1", "--graph-batch", "2", "--device", "cpu",
                 "--out", str(out)]) == 0
    (record,) = [json.loads(p.read_text()) for p in (out / "raw" / "graphs").glob("*=*.json")]
    assert record["device"] == "cpu"
    assert Invocations.load(Layout(out, "graphs"))[0]["device"] == "cpu"


def test_reproduce_entity_on_cpu(tmp_path, monkeypatch) -> None:
    toy = dataclasses.replace(toy_entities(), name="aifb")  # AIFB's settings, a tiny graph
    monkeypatch.setattr(entity_reproduction, "load_entities", lambda *a, **k: toy)
    out = tmp_path / "results"
    assert main(["reproduce", "entity", "--datasets", "aifb", "--models", "gfb-rgcn",
                 "--seeds", "1", "--select-seeds", "0", "--fixed-epochs", "2", "--device", "cpu",
                 "--out", str(out)]) == 0
    (record,) = [json.loads(p.read_text()) for p in (out / "raw" / "entity").glob("*=*.json")]
    assert record["device"] == "cpu" and record["epochs_run"] == 2
    assert Invocations.load(Layout(out, "entity"))[0]["device"] == "cpu"

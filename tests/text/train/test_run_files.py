"""A training run's files: predictions.csv, what a paired test needs; its figures, written
with the run (or later), never at the cost of the run."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import numpy as np
import pytest

from gfbgcn.core.atomic import directory_kind
from gfbgcn.core.errors import MissingExtraError, UserError
from gfbgcn.core.figures.confusion import figure_size
from gfbgcn.text.graph.text_graph import GraphConfig, build_text_graph
from gfbgcn.text.tokenize.registry import UnicodeTokenizer
from gfbgcn.text.train import run_files
from gfbgcn.text.train.config import TrainConfig
from gfbgcn.text.train.run import train_text
from gfbgcn.text.train.run_files import (
    auto_choice,
    draw_run,
    figure_inputs,
    history_csv,
    predictions_csv,
    write_run,
)
from tests.core.figures.png import png_size
from tests.core.test_extras import _block
from tests.text.search.test_own_corpus import tiny_corpus


def _graph():
    return build_text_graph(tiny_corpus(40), GraphConfig(min_freq=1, stop_words=None),
                            UnicodeTokenizer(), cache=False)


def test_predictions_are_the_test_documents_with_the_argmax_and_the_baseline():
    graph = _graph()
    rng = np.random.default_rng(0)
    probs = rng.dirichlet([1, 1], size=graph.num_docs)
    base = rng.dirichlet([1, 1], size=graph.num_docs)
    rows = list(csv.DictReader(io.StringIO(predictions_csv(graph, probs, baseline=base))))
    test = np.flatnonzero(~graph.is_train)
    assert [int(r["doc"]) for r in rows] == test.tolist()
    for r in rows:
        i = int(r["doc"])
        assert r["label"] == graph.label_names[graph.labels[i]]
        assert r["predicted"] == graph.label_names[probs[i].argmax()]
        assert float(r["probability"]) == round(probs[i].max(), 6)
        assert r["baseline_predicted"] == graph.label_names[base[i].argmax()]


def test_multi_label_predictions_join_the_labels_above_the_threshold():
    graph = _graph()
    probs = np.tile([0.9, 0.2, 0.6], (graph.num_docs, 1))
    text = predictions_csv(graph, probs, label_names=["a", "b", "c"], threshold=0.5)
    rows = list(csv.DictReader(io.StringIO(text)))
    assert "baseline_predicted" not in rows[0]
    assert {r["predicted"] for r in rows} == {"a|c"} and {r["probability"] for r in rows} == {""}


# ---- the figures of a run ----------------------------------------------------------------


@pytest.fixture(scope="module")
def trained_run():
    """``(result, graph)``: a 6-epoch gcn on the tiny two-class corpus."""
    graph = _graph()
    return train_text(graph, TrainConfig(model="gcn", hidden=8, epochs=6, seed=0),
                      progress=False), graph


def _files(path: Path) -> set[str]:
    return {p.name for p in path.iterdir()}


RUN_FILES = {".gfbgcn", "config.json", "history.csv", "metrics.json", "predictions.csv"}


def test_the_figures_are_written_with_the_run(trained_run, tmp_path):
    result, graph = trained_run
    out = write_run(tmp_path / "run", result, graph)
    assert _files(out) == RUN_FILES | {"curves.png", "confusion.png"}
    assert directory_kind(out) == "run"  # the next write may replace it
    assert png_size(out / "curves.png") == (1000, 400)
    side = round(figure_size(len(graph.label_names)) * 100)
    assert png_size(out / "confusion.png")[1] == side
    assert _files(tmp_path) == {"run"}  # no temporary left beside it


def _failing_draw(error: BaseException):
    """A drawing that writes one figure, then fails with ``error``."""
    def draw(directory, history, **kwargs):
        (Path(directory) / "curves.png").write_bytes(b"\x89PNG half")
        raise error
    return draw


def test_a_figure_that_fails_leaves_the_run_whole_without_figures(trained_run, tmp_path,
                                                                  monkeypatch):
    """Drawing is not worth the trained result: the run is written, figures none, and a
    warning says why (the earlier run there replaced as usual)."""
    result, graph = trained_run
    out = write_run(tmp_path / "run", result, graph, draw=False)
    (out / "history.csv").write_text("an earlier run's\n")
    monkeypatch.setattr(run_files, "draw_run_figures", _failing_draw(RuntimeError("no font")))
    with pytest.warns(UserWarning, match=r"run: written without its figures: drawing them "
                                         r"failed \(RuntimeError: no font\)"):
        write_run(out, result, graph, draw=True)
    assert _files(out) == RUN_FILES
    assert (out / "history.csv").read_bytes() == history_csv(result.history).encode()
    assert json.loads((out / "metrics.json").read_text())["test"]["accuracy"] == \
        result.test["accuracy"]
    assert _files(tmp_path) == {"run"}


def test_an_interrupt_while_drawing_keeps_the_earlier_run(trained_run, tmp_path, monkeypatch):
    """Only an ``Exception`` is a figure's failure: Ctrl-C (or SIGTERM) abandons the whole
    write, and the run there before stays as it was."""
    result, graph = trained_run
    out = write_run(tmp_path / "run", result, graph, draw=False)
    before = {name: (out / name).read_bytes() for name in _files(out)}
    monkeypatch.setattr(run_files, "draw_run_figures", _failing_draw(KeyboardInterrupt()))
    with pytest.raises(KeyboardInterrupt):
        write_run(out, result, graph, draw=True)
    assert {name: (out / name).read_bytes() for name in _files(out)} == before
    assert _files(tmp_path) == {"run"}


def test_without_matplotlib_the_run_has_no_figures_and_asking_for_them_writes_nothing(
        trained_run, tmp_path, monkeypatch):
    result, graph = trained_run
    _block(monkeypatch, "matplotlib")
    assert _files(write_run(tmp_path / "run", result, graph)) == RUN_FILES
    with pytest.raises(MissingExtraError, match=r"pip install 'gfbgcn\[figures\]'"):
        write_run(tmp_path / "other", result, graph, draw=True)
    assert _files(tmp_path) == {"run"}  # refused before anything was written


def test_draw_run_draws_the_figures_of_a_run_written_without_them(trained_run, tmp_path,
                                                                  monkeypatch):
    result, graph = trained_run
    out = write_run(tmp_path / "run", result, graph, draw=False)
    seen = {}
    real = run_files.draw_run_figures
    monkeypatch.setattr(run_files, "draw_run_figures",
                        lambda *a, **k: seen.update(k) or real(*a, **k))
    assert draw_run(out) == [out / "curves.png", out / "confusion.png"]
    assert directory_kind(out) == "run"
    # what the files hold is what the result held
    assert seen["label_names"] == list(graph.label_names)
    assert seen["best_epoch"] == result.best_epoch and seen["title"] == "gcn on tiny"
    assert seen["confusion"].tolist() == result.test["confusion_matrix"]
    assert draw_run(out, tmp_path / "pictures") == [tmp_path / "pictures" / "curves.png",
                                                     tmp_path / "pictures" / "confusion.png"]


def test_draw_run_refuses_what_is_not_a_run(tmp_path):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "history.csv").write_text("epoch\n1\n")
    for path in (tmp_path / "mine", tmp_path / "missing"):
        with pytest.raises(UserError, match="not a run directory"):
            draw_run(path)


def test_figure_inputs_name_auto_s_choice_and_read_multi_label_scores():
    base = {"label_names": ["a", "b"], "best_epoch": 3, "test": {"micro_f1": 0.5},
            "test_per_label": {"labels": ["a", "b"], "f1": [0.5, 1.0], "support": [2, 1]}}
    inputs = figure_inputs(base)
    assert inputs["confusion"] is None and inputs["label_f1"] == ([0.5, 1.0], [2, 1])
    assert inputs["predictor"] == ""
    chosen = {"predictor": "graph+linear", "model": "gcn", "weight": 0.25}
    assert auto_choice(chosen) == "auto chose gcn + linear (graph weight 0.25)"
    assert auto_choice({"predictor": "linear", "linear": "svm C=1"}) == "auto chose linear svm C=1"
    assert auto_choice({"predictor": "graph", "model": "gfb-max"}) == "auto chose gfb-max"

"""Training a text model: the paper's protocol on real R8 documents, early stopping on the
validated weights, the run directory, and the training setup on a toy graph."""

from __future__ import annotations

import json

import numpy as np
import pytest

from gfbgcn.text.corpus.benchmarks import load_benchmark
from gfbgcn.text.graph.text_graph import build_text_graph
from gfbgcn.text.train.config import TrainConfig
from gfbgcn.text.train.run import train_text
from gfbgcn.text.train.run_files import history_csv, write_run


@pytest.fixture(scope="module")
def small_r8_graph(data_dir):
    """300 real R8 documents (240 train / 60 test), drawn with a fixed seed."""
    corpus = load_benchmark("r8", data_dir)
    rng = np.random.default_rng(0)
    train = rng.choice(np.flatnonzero(corpus.is_train), 240, replace=False)
    test = rng.choice(np.flatnonzero(~corpus.is_train), 60, replace=False)
    return build_text_graph(corpus.subset(np.concatenate([train, test]), name="r8-300"))


@pytest.mark.realdata
@pytest.mark.parametrize("model", ["gcn", "gfb-max"])
def test_end_to_end_beats_majority_class(small_r8_graph, model, tmp_path):
    graph = small_r8_graph
    result = train_text(graph, TrainConfig(model=model, epochs=40, seed=1), progress=False)
    test_labels = graph.labels[~graph.is_train]
    majority = np.bincount(test_labels).max() / len(test_labels)
    assert result.test["accuracy"] > majority + 0.05
    assert 1 <= result.best_epoch <= result.epochs_run <= 40
    out = write_run(tmp_path / "run", result, graph, draw=False)  # figures: test_run_files
    assert {p.name for p in out.iterdir()} == {".gfbgcn", "config.json", "history.csv",
                                               "metrics.json", "predictions.csv"}
    rows = (out / "predictions.csv").read_text().splitlines()
    assert rows[0] == "doc,label,predicted,probability"
    assert len(rows) == 1 + int((~graph.is_train).sum())
    correct = [r.split(",")[1] == r.split(",")[2] for r in rows[1:]]
    assert np.mean(correct) == pytest.approx(result.test["accuracy"])
    assert '"seed": 1' in (out / "config.json").read_text()
    metrics = json.loads((out / "metrics.json").read_text())
    if model == "gcn":
        assert result.lam is None and "lambda" not in metrics and "lambda" not in result.history[0]
    else:  # the kept lambda is the one validated at the best epoch, and it was learned
        assert result.lam == pytest.approx(result.history[result.best_epoch - 1]["lambda"])
        assert metrics["lambda"] == result.lam == float(result.model.conv2.lam)
        assert result.history[0]["lambda"] == 1.0 and result.lam != 1.0
        assert "lambda" in (out / "history.csv").read_text().splitlines()[0]


@pytest.mark.realdata
def test_same_seed_same_result(small_r8_graph):
    cfg = TrainConfig(model="gfb-mean", epochs=5, seed=3)
    a = train_text(small_r8_graph, cfg, progress=False)
    b = train_text(small_r8_graph, cfg, progress=False)
    assert a.test == b.test
    assert [h["val_loss"] for h in a.history] == [h["val_loss"] for h in b.history]


@pytest.mark.realdata
def test_monitor_accuracy_keeps_the_most_accurate_validated_weights(small_r8_graph):
    result = train_text(small_r8_graph, TrainConfig(model="gcn", epochs=25, seed=2,
                                                        monitor="accuracy"), progress=False)
    val_acc = [h["val_acc"] for h in result.history]
    assert result.history[result.best_epoch - 1]["val_acc"] == max(val_acc)
    assert result.val["accuracy"] == pytest.approx(max(val_acc))
    assert result.val["loss"] == result.history[result.best_epoch - 1]["val_loss"]


def test_unknown_monitor_is_rejected():
    with pytest.raises(ValueError, match="monitor"):
        TrainConfig(monitor="f1")


def test_unknown_model_is_rejected():
    with pytest.raises(ValueError, match="unknown model"):
        TrainConfig(model="gat")


def test_toy_run_record_history_and_run_directory(trained, tmp_path):
    graph, result = trained
    assert 1 <= result.best_epoch <= result.epochs_run == len(result.history) <= 5
    best = result.history[result.best_epoch - 1]
    assert result.val["loss"] == best["val_loss"]
    assert result.lam == pytest.approx(best["lambda"])  # lambda of the kept weights
    assert result.probabilities.shape == (graph.num_docs, 3)
    np.testing.assert_allclose(result.probabilities.sum(1), 1.0, rtol=1e-5)
    record = result.record()
    assert {"config", "test", "val", "best_epoch", "versions", "machine", "lambda"} <= set(record)
    assert json.loads(json.dumps(record)) == record  # JSON-serialisable as stored
    header, *rows = history_csv(result.history).splitlines()
    assert header.split(",") == list(result.history[0]) and len(rows) == result.epochs_run
    out = write_run(tmp_path / "run", result, graph, label_names=["x", "y", "z"])
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["label_names"] == ["x", "y", "z"] and metrics["best_epoch"] == result.best_epoch
    config = json.loads((out / "config.json").read_text())
    assert config["graph"]["window"] == 3 and config["train"]["model"] == "gfb-max"


def test_frozen_lambda_stays_at_its_initial_value(trained):
    graph, _ = trained
    cfg = TrainConfig(model="gfb-max", epochs=3, hidden=8, train_lambda=False,
                      layer_options={"lambda_init": 0.0})
    result = train_text(graph, cfg, progress=False)
    assert [h["lambda"] for h in result.history] == [0.0] * result.epochs_run
    assert result.lam == 0.0 and not result.model.conv2.lam.requires_grad
    assert history_csv([]) == ""


def test_a_learned_gin_eps_is_recorded_as_kept(trained):
    graph, _ = trained
    result = train_text(graph, TrainConfig(model="gin", epochs=3, hidden=8, seed=1),
                        progress=False)
    convs = result.model.module.convs
    assert all(conv.eps.requires_grad for conv in convs)  # learned (from 0)
    assert result.record()["gin_eps"] == [float(conv.eps) for conv in convs]

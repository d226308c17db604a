"""Multi-label: label sets, metrics against scikit-learn, threshold choice, training, CLI."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest
import torch
from sklearn.metrics import accuracy_score, f1_score, precision_score, recall_score

from gfbgcn.cli import main
from gfbgcn.text.corpora import Corpus
from gfbgcn.text.graph import GraphConfig, build_text_graph
from gfbgcn.text.multilabel import (
    THRESHOLD_GRID,
    choose_threshold,
    multi_hot,
    multilabel_metrics,
    split_labels,
)
from gfbgcn.text.preprocess import whitespace_tokenize
from gfbgcn.train.text import TextTrainConfig, train_text

torch.set_num_threads(1)


def test_split_and_multi_hot():
    sets = split_labels(["a|b", " b ", "c||a|a"], "|")
    assert sets == [["a", "b"], ["b"], ["c", "a"]]
    y, names = multi_hot(sets)
    assert names == ["a", "b", "c"]
    np.testing.assert_array_equal(y, [[1, 1, 0], [0, 1, 0], [1, 0, 1]])
    with pytest.raises(ValueError):
        split_labels(["a"], "")


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_metrics_match_sklearn(seed):
    rng = np.random.default_rng(seed)
    y_true = rng.random((50, 6)) < 0.3
    y_pred = rng.random((50, 6)) < 0.3
    y_pred[:10] = y_true[:10]  # some exact matches for subset accuracy
    y_true[:, 5] = False  # a label that never occurs
    m = multilabel_metrics(y_true, y_pred)
    kw = {"zero_division": 0}
    assert m["micro_f1"] == pytest.approx(f1_score(y_true, y_pred, average="micro", **kw))
    assert m["macro_f1"] == pytest.approx(f1_score(y_true, y_pred, average="macro", **kw))
    assert m["micro_precision"] == pytest.approx(
        precision_score(y_true, y_pred, average="micro", **kw))
    assert m["micro_recall"] == pytest.approx(recall_score(y_true, y_pred, average="micro", **kw))
    assert m["subset_accuracy"] == pytest.approx(accuracy_score(y_true, y_pred))


def test_choose_threshold_is_grid_argmax():
    rng = np.random.default_rng(0)
    y = rng.random((40, 4)) < 0.4
    probs = np.clip(y * 0.35 + rng.random((40, 4)) * 0.6, 0, 1)
    t, score = choose_threshold(y, probs)
    scores = [f1_score(y, probs >= g, average="micro", zero_division=0) for g in THRESHOLD_GRID]
    assert t in THRESHOLD_GRID and score == pytest.approx(max(scores))
    assert t == THRESHOLD_GRID[int(np.argmax(scores))]


def test_train_multilabel_and_single_label_unchanged():
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(30)]
    texts = [" ".join(rng.choice(words, size=10)) for _ in range(60)]
    labels = [["x", "y", "x|y"][i % 3] for i in range(60)]
    corpus = Corpus("ml", texts, labels, np.arange(60) < 45)
    graph = build_text_graph(corpus, GraphConfig(window=3, min_freq=1, stop_words=None),
                             whitespace_tokenize, cache=False)
    y, names = multi_hot(split_labels(corpus.labels))
    cfg = TextTrainConfig(model="gfb-max", epochs=4, hidden=8, val_ratio=0.2)
    res = train_text(graph, cfg, progress=False, multilabel_targets=y)
    assert names == ["x", "y"] and res.probabilities.shape == (60, 2)
    assert res.threshold in THRESHOLD_GRID
    assert {"micro_f1", "macro_f1", "subset_accuracy", "threshold"} <= set(res.test)
    assert "threshold" in res.record()
    single = train_text(graph, cfg, progress=False)
    assert single.threshold is None and "accuracy" in single.test
    np.testing.assert_allclose(single.probabilities.sum(1), 1.0, rtol=1e-5)


def test_cli_multilabel_train_save_predict(tmp_path, capsys):
    rng = np.random.default_rng(0)
    sport = ["goal", "match", "team", "striker", "league", "cup"]
    money = ["bank", "shares", "market", "profits", "rates", "inflation"]
    rows = []
    for i in range(30):
        kind = i % 3
        pool = sport if kind == 0 else money if kind == 1 else sport + money
        label = ["sport", "finance", "sport|finance"][kind]
        rows.append({"text": " ".join(rng.choice(pool, 8)), "label": label,
                     "split": "test" if i % 6 == 5 else "train"})
    path = tmp_path / "ml.csv"
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=["text", "label", "split"])
        writer.writeheader()
        writer.writerows(rows)
    model_dir = tmp_path / "model"
    assert main(["train", "--dataset", str(path), "--multi-label", "--model", "gcn",
                 "--min-freq", "1", "--epochs", "30", "--hidden", "16", "--quiet", "--no-cache",
                 "--val-ratio", "0.2", "--save", str(model_dir), "--out", str(tmp_path / "run")]
                ) == 0
    out = capsys.readouterr().out
    assert "micro F1" in out and "threshold" in out
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())
    assert metrics["label_names"] == ["finance", "sport"]  # the output columns, not combinations
    assert main(["predict", str(model_dir), "--text", "goal match team"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "row,labels,probabilities"
    import gfbgcn

    model = gfbgcn.load(model_dir)
    pred = model.predict(["goal match team", "bank shares market"])
    assert model.multi_label and pred.probabilities.shape == (2, 2)
    assert all(isinstance(labels, list) for labels in pred.labels)

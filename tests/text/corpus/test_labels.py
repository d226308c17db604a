"""Multi-label: label sets, metrics against scikit-learn, threshold choice, training."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import accuracy_score, f1_score, precision_score, recall_score

from gfbgcn.text.corpus.benchmarks import Corpus
from gfbgcn.text.graph.text_graph import GraphConfig, build_text_graph
from gfbgcn.text.corpus.labels import (
    THRESHOLD_GRID,
    choose_threshold,
    multi_hot,
    multilabel_metrics,
    split_labels,
)
from gfbgcn.text.tokenize.preprocess import whitespace_tokenize
from gfbgcn.text.train.full_batch import TrainConfig, train_text


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
    cfg = TrainConfig(model="gfb-max", epochs=4, hidden=8, val_ratio=0.2)
    res = train_text(graph, cfg, progress=False, multilabel_targets=y)
    assert names == ["x", "y"] and res.probabilities.shape == (60, 2)
    assert res.threshold in THRESHOLD_GRID
    assert {"micro_f1", "macro_f1", "subset_accuracy", "threshold"} <= set(res.test)
    assert "threshold" in res.record()
    single = train_text(graph, cfg, progress=False)
    assert single.threshold is None and "accuracy" in single.test
    np.testing.assert_allclose(single.probabilities.sum(1), 1.0, rtol=1e-5)

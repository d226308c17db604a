"""The multi-label linear baseline: one logistic regression per label over the n-gram TF-IDF
features, its C and one threshold chosen on validation, refitted on the whole training split,
scored with the graph model's multi-label metrics."""

from __future__ import annotations

import json

import numpy as np

from gfbgcn.text.corpus.labels import THRESHOLD_GRID, multilabel_metrics
from gfbgcn.text.linear.baseline import LinearTextModel
from gfbgcn.text.linear.grid import ABSENT
from gfbgcn.text.linear.multilabel import fit_multilabel_baseline, multilabel_grid
from tests.text.toydata import FILLER_WORDS, TOPIC_WORDS

LABELS = ["money", "science", "sport"]


def _documents(n: int = 90, seed: int = 0) -> tuple[list[str], np.ndarray]:
    """``n`` documents with one or two of three topics each (words of each, and fillers), and
    their ``[n, 3]`` 0/1 labels."""
    rng = np.random.default_rng(seed)
    texts, y = [], np.zeros((n, 3), dtype=np.float32)
    for i in range(n):
        topics = [i % 3] + ([(i + 1) % 3] if i % 2 else [])
        words = [w for t in topics for w in rng.choice(TOPIC_WORDS[LABELS[t]], 3)]
        texts.append(" ".join(rng.permutation([*words, *rng.choice(FILLER_WORDS, 3)])))
        y[i, topics] = 1.0
    return texts, y


SPLIT = (np.arange(50), np.arange(50, 65), np.arange(65, 90))


def test_multilabel_baseline_chooses_on_validation_refits_and_matches_scikit_learn():
    from sklearn.linear_model import LogisticRegression

    texts, y = _documents()
    train, val, test = SPLIT
    b = fit_multilabel_baseline(texts, y, LABELS, train, val, test, seed=0)
    assert b.model.multi_label and b.model.label_names == LABELS
    assert b.probabilities.shape == (90, 3) and b.val_probabilities.shape == (15, 3)
    assert b.threshold in THRESHOLD_GRID and b.test["threshold"] == b.threshold
    # the graph model's metric names, scored at the chosen threshold
    expected = multilabel_metrics(y[test], b.probabilities[test] >= b.threshold)
    assert b.test == expected | {"threshold": b.threshold}
    assert b.test["micro_f1"] >= 0.8  # the topics are learnable
    # the chosen C is the validation grid's best (micro F1, then log-loss)
    assert [r["C"] for r in b.grid] == [p.value for p in multilabel_grid(False)]
    best = max(b.grid, key=lambda r: (r["val_micro_f1"], -r["val_log_loss"]))
    assert b.model.params == {"C": best["C"]} and b.threshold == best["threshold"]
    # refitted on training + validation documents: each label is scikit-learn's binary LR
    x = b.model.features(texts)
    fit = np.r_[train, val]
    for label in range(3):
        ref = LogisticRegression(C=best["C"], solver="liblinear", random_state=0)
        ref.fit(x[fit], y[fit, label])
        assert np.allclose(b.probabilities[:, label], ref.predict_proba(x)[:, 1], atol=1e-8)
    arrays, meta = b.model.to_tensors()
    again = LinearTextModel.from_tensors(arrays, json.loads(json.dumps(meta)))
    assert again.multi_label and np.allclose(again.predict_proba(texts), b.probabilities)


def test_a_label_constant_in_training_is_always_or_never_predicted():
    texts, y = _documents()
    train, val, test = SPLIT
    y = np.c_[y, np.zeros(90), np.ones(90)].astype(np.float32)  # "never" and "always"
    b = fit_multilabel_baseline(texts, y, [*LABELS, "never", "always"], train, val, test)
    assert list(b.model.intercept[3:]) == [ABSENT, -ABSENT]
    assert (b.probabilities[:, 3] < 1e-12).all() and (b.probabilities[:, 4] > 1 - 1e-12).all()


def test_multilabel_test_labels_are_never_read_for_any_choice():
    texts, y = _documents()
    train, val, test = SPLIT
    first = fit_multilabel_baseline(texts, y, LABELS, train, val, test)
    shuffled = y.copy()
    shuffled[test] = y[np.random.default_rng(1).permutation(test)]
    assert (shuffled != y).any()
    second = fit_multilabel_baseline(texts, shuffled, LABELS, train, val, test)
    assert first.grid == second.grid and first.threshold == second.threshold
    assert np.array_equal(first.probabilities, second.probabilities)
    assert first.test != second.test


def test_balanced_class_weight_raises_a_rare_labels_probability():
    texts, y = _documents()
    train, val, test = SPLIT
    y = y.copy()
    rare = np.flatnonzero(y[:, 0])[::4]
    y[:, 0] = 0
    y[rare, 0] = 1  # "money" on a quarter of its documents only
    plain = fit_multilabel_baseline(texts, y, LABELS, train, val, test)
    balanced = fit_multilabel_baseline(texts, y, LABELS, train, val, test,
                                       class_weight="balanced")
    assert balanced.class_weight == "balanced"
    assert balanced.probabilities[test, 0].mean() > plain.probabilities[test, 0].mean()


def test_hashed_multilabel_baseline_fits_sgd_per_label():
    texts, y = _documents()
    train, val, test = SPLIT
    b = fit_multilabel_baseline(texts, y, LABELS, train, val, test, hashed=True)
    assert b.model.kind == "sgd-log" and {r["kind"] for r in b.grid} == {"sgd-log"}
    assert b.model.ngrams is not None and b.model.ngrams.hashed
    assert b.test["micro_f1"] >= 0.6

"""The built-in linear baseline: word + char n-gram TF-IDF, the classifier chosen on validation,
refitted on the whole training split, calibrated, bounded at scale."""

from __future__ import annotations

import json

import numpy as np
import pytest

from gfbgcn.text.corpus.benchmarks import Corpus
from gfbgcn.text.linear.baseline import (
    HASH_FEATURES,
    LinearTextModel,
    fit_baseline,
    grid,
)
from tests.text.search.test_own_corpus import tiny_corpus


def _ids(corpus: Corpus) -> np.ndarray:
    return np.array([corpus.label_names.index(lab) for lab in corpus.labels])


def test_ngram_baseline_chooses_on_validation_refits_and_round_trips():
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.svm import LinearSVC

    corpus = tiny_corpus(80, noise=0.5)
    y = _ids(corpus)
    train, val, test = np.arange(50), np.arange(50, 60), np.arange(60, 80)
    b = fit_baseline(corpus.texts, y, corpus.label_names, train, val, test, seed=0)
    # every grid point was scored on validation, the best one was taken
    assert [(r["kind"]) for r in b.grid] == [p.kind for p in grid(False)]
    best = max(b.grid, key=lambda r: (r["val_accuracy"], -r["val_log_loss"]))
    assert b.model.kind == best["kind"] and b.val["accuracy"] == best["val_accuracy"]
    assert b.val_proba().shape == (10, 2) and np.allclose(b.val_proba().sum(1), 1.0)
    # the features are scikit-learn's word 1-2 + char_wb 2-5 TF-IDF of the training split
    fit_texts = [corpus.texts[i] for i in range(60)]
    ref = [TfidfVectorizer(analyzer=a, ngram_range=r, sublinear_tf=True).fit(fit_texts)
           for a, r in (("word", (1, 2)), ("char_wb", (2, 5)))]
    x_ref = np.hstack([v.transform(corpus.texts).toarray() for v in ref])
    assert np.allclose(b.model.features(corpus.texts).toarray(), x_ref)
    # refitted on training + validation: a LinearSVC of the chosen C on those 60 documents
    # predicts as the stored model does
    if b.model.kind == "svm":
        ref_svm = LinearSVC(C=b.model.C, random_state=0).fit(x_ref[:60], y[:60])
        assert (ref_svm.predict(x_ref) == b.probabilities.argmax(1)).all()
    arrays, meta = b.model.to_tensors()
    again = LinearTextModel.from_tensors(arrays, json.loads(json.dumps(meta)))
    assert np.allclose(again.predict_proba(corpus.texts), b.probabilities)
    assert b.test["accuracy"] >= 0.8  # the classes are separable by their words


@pytest.mark.parametrize("kind", ["lr", "svm", "sgd", "cnb"])
def test_each_kind_refits_on_the_whole_training_split(kind, monkeypatch):
    """Whatever kind wins, the stored model is scikit-learn's classifier refitted on training +
    validation documents, its scores divided by the temperature chosen on validation."""
    from sklearn.linear_model import LogisticRegression, SGDClassifier
    from sklearn.naive_bayes import ComplementNB
    from sklearn.svm import LinearSVC

    from gfbgcn.text.linear import baseline as bl

    value = 1e-4 if kind == "sgd" else 1.0
    point = bl.GridPoint(kind, "C" if kind in ("lr", "svm") else "alpha", value)
    monkeypatch.setattr(bl, "grid", lambda hashed, classes: [point])
    corpus = tiny_corpus(80, noise=0.5)
    y = _ids(corpus)
    train, val, test = np.arange(50), np.arange(50, 60), np.arange(60, 80)
    b = bl.fit_baseline(corpus.texts, y, corpus.label_names, train, val, test, seed=0)
    assert b.model.kind == kind and b.model.temperature in bl.TEMPERATURES
    x = b.model.features(corpus.texts)
    ref = {"lr": LogisticRegression(C=value, solver="liblinear", random_state=0),
           "svm": LinearSVC(C=value, random_state=0),
           "sgd": SGDClassifier(loss="modified_huber", alpha=value, random_state=0),
           "cnb": ComplementNB(alpha=value)}[kind].fit(x[:60], y[:60])
    if kind == "cnb":
        jll = ref.predict_joint_log_proba(x)
        score = jll[:, 1] - jll[:, 0]
    else:
        score = ref.decision_function(x)
    p = b.probabilities
    assert np.allclose(np.log(p[:, 1] / p[:, 0]) * b.model.temperature, score, atol=1e-6)
    assert b.test["accuracy"] >= 0.75


def test_hashed_baseline_at_scale_is_bounded_and_round_trips():
    corpus = tiny_corpus(80, noise=0.5)
    y = _ids(corpus)
    train, val, test = np.arange(50), np.arange(50, 60), np.arange(60, 80)
    b = fit_baseline(corpus.texts, y, corpus.label_names, train, val, test, seed=0, hashed=True)
    assert b.model.coef.shape == (2, HASH_FEATURES) and b.model.kind in ("sgd", "cnb")
    assert {r["kind"] for r in b.grid} == {"sgd", "cnb"}
    assert {p.kind for p in grid(True, 115)} == {"cnb"}  # SGD's cost grows with the classes
    arrays, meta = b.model.to_tensors()
    assert meta["features"]["word_vocab"] is None  # nothing grows with the corpus but the IDF
    again = LinearTextModel.from_tensors(arrays, json.loads(json.dumps(meta)))
    assert np.allclose(again.predict_proba(corpus.texts), b.probabilities)
    assert b.test["accuracy"] >= 0.75


@pytest.mark.parametrize("kind", ["lr", "svm", "sgd", "cnb"])
def test_balanced_class_weight_favours_the_rare_class(kind, monkeypatch):
    from gfbgcn.text.linear import baseline as bl

    point = bl.GridPoint(kind, "C" if kind in ("lr", "svm") else "alpha",
                         1e-4 if kind == "sgd" else 1.0)
    monkeypatch.setattr(bl, "grid", lambda hashed, classes: [point])
    corpus = tiny_corpus(200, noise=0.9)  # classes overlap: the prior matters
    y = _ids(corpus)
    rare = np.flatnonzero(y == 1)[::6]  # keep one in six of class 1 in training
    train = np.sort(np.concatenate([np.flatnonzero(y == 0)[:80], rare[:12]]))
    val, test = train[::10], np.setdiff1d(np.arange(200), train)
    train = np.setdiff1d(train, val)
    plain = bl.fit_baseline(corpus.texts, y, corpus.label_names, train, val, test, seed=0)
    balanced = bl.fit_baseline(corpus.texts, y, corpus.label_names, train, val, test, seed=0,
                               class_weight="balanced")
    # the mean probability of the rare class on the test documents rises
    rare_mass = [b.probabilities[test, 1].mean() for b in (plain, balanced)]
    assert rare_mass[1] > rare_mass[0]


def test_test_labels_are_never_read_for_any_choice():
    corpus = tiny_corpus(80, noise=0.9)
    y = _ids(corpus)
    train, val, test = np.arange(50), np.arange(50, 60), np.arange(60, 80)
    first = fit_baseline(corpus.texts, y, corpus.label_names, train, val, test, seed=0)
    shuffled = y.copy()
    shuffled[test] = np.random.default_rng(3).permutation(y[test])
    shuffled[test[:4]] = 1 - shuffled[test[:4]]
    assert (shuffled != y).any()
    second = fit_baseline(corpus.texts, shuffled, corpus.label_names, train, val, test, seed=0)
    assert first.grid == second.grid and first.model.description == second.model.description
    assert first.model.temperature == second.model.temperature
    assert np.array_equal(first.probabilities, second.probabilities)


def test_a_class_weight_dict_is_the_same_as_those_weights_per_document(monkeypatch):
    """A dict weighs each document by its class, in every fit (grid and refit), as sample
    weights; the result records the dict."""
    from gfbgcn.text.linear import baseline as bl

    seen: list = []
    real = bl.fit_point

    def spy(*args):
        seen.append((args[5], None if args[6] is None else args[6].copy()))
        return real(*args)

    monkeypatch.setattr(bl, "fit_point", spy)
    corpus = tiny_corpus(80, noise=0.5)
    y = _ids(corpus)
    train, val, test = np.arange(50), np.arange(50, 60), np.arange(60, 80)
    named = bl.fit_baseline(corpus.texts, y, corpus.label_names, train, val, test, seed=0,
                            class_weight={corpus.label_names[1]: 3.0})
    assert named.class_weight == {corpus.label_names[1]: 3.0}
    by_doc = np.where(y == 1, 3.0, 1.0)
    assert all(cw is None for cw, _ in seen) and len(seen) == len(named.grid) + 1
    np.testing.assert_array_equal(seen[0][1], by_doc[train])  # the grid's fits: training
    np.testing.assert_array_equal(seen[-1][1], by_doc[np.r_[train, val]])  # the refit
    weighted = bl.fit_baseline(corpus.texts, y, corpus.label_names, train, val, test, seed=0,
                               sample_weight=by_doc)
    np.testing.assert_allclose(named.probabilities, weighted.probabilities)
    plain = bl.fit_baseline(corpus.texts, y, corpus.label_names, train, val, test, seed=0)
    assert [r["val_log_loss"] for r in plain.grid] != [r["val_log_loss"] for r in named.grid]


def test_one_vs_rest_logistic_regression_takes_sample_weights():
    """scikit-learn's OneVsRestClassifier passes no sample_weight without metadata routing:
    with weights the binary models are fitted one by one, the same models for unit weights."""
    from gfbgcn.text.linear.grid import GridPoint, fit_point
    from gfbgcn.text.linear.ngrams import NgramFeatures

    corpus = tiny_corpus(60, noise=0.5)
    ngrams, counts = NgramFeatures.fit(corpus.texts, False)
    x = ngrams.transform_counts(counts)
    y = np.arange(60) % 3
    point = GridPoint("lr", "C", 1.0)
    plain = fit_point(x, y, 3, point, 0, "balanced")
    ones = fit_point(x, y, 3, point, 0, "balanced", np.ones(60))
    np.testing.assert_allclose(ones[0], plain[0], atol=1e-8)
    np.testing.assert_allclose(ones[1], plain[1], atol=1e-8)
    heavy = fit_point(x, y, 3, point, 0, "balanced", np.where(y == 2, 5.0, 1.0))
    assert not np.allclose(heavy[0], plain[0])

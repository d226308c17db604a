"""What ``TextGCNClassifier.fit_corpus`` does around training (``gfbgcn.text.estimator.fitting``):
multi-label runs, the baseline beside the model, ``batch_size="auto"``, and the report."""

from __future__ import annotations

import numpy as np
import pytest

from gfbgcn import TextGCNClassifier, load
from gfbgcn.core.errors import OptionError
from gfbgcn.text.corpus.corpus import Corpus
from gfbgcn.text.estimator import fitting
from tests.text.search.test_own_corpus import tiny_corpus
from tests.text.toydata import skewed_corpus

FAST = {"hidden": 8, "epochs": 6, "min_freq": 1, "stop_words": None, "cache": False}


def _multi_label(n: int = 60) -> Corpus:
    """tiny_corpus with a second label on the documents of the 'šport' words that hold 'a'."""
    c = tiny_corpus(n)
    labels = [y + ("|mixed" if i % 3 == 0 else "") for i, y in enumerate(c.labels)]
    return Corpus("multi", c.texts, labels, c.is_train)


def test_fit_corpus_trains_multi_label_and_saves_a_multi_label_model(tmp_path):
    corpus = _multi_label()
    clf = TextGCNClassifier(**FAST, model="gcn", multi_label=True).fit_corpus(corpus)
    assert list(clf.classes_) == ["denar", "mixed", "šport"]
    assert {"micro_f1", "macro_f1", "subset_accuracy"} <= set(clf.result_.test)
    proba = clf.predict_proba(corpus.texts[:5] + ["unseen words only"])
    assert proba.shape == (6, 3) and ((proba >= 0) & (proba <= 1)).all()
    pred = clf.predict(corpus.texts[:5])
    assert pred.shape == (5, 3) and set(np.unique(pred)) <= {0, 1}
    # the linear baseline beside it: one model per label, the same metrics and split
    b = clf.baseline_
    assert b is not None and b.model.multi_label and b.model.label_names == list(clf.classes_)
    assert set(b.test) == set(clf.result_.test) and b.threshold == b.test["threshold"]
    assert b.probabilities.shape == (60, 3) and b.test["num_docs"] == clf.result_.test["num_docs"]
    assert TextGCNClassifier(**FAST, model="gcn", multi_label=True, baseline=False
                             ).fit_corpus(corpus).baseline_ is None
    path = clf.save(tmp_path / "model", transductive=False)
    saved = load(path)
    assert saved.multi_label and saved.label_names == ["denar", "mixed", "šport"]


def test_multi_label_refuses_mini_batches_and_auto():
    with pytest.raises(OptionError, match="^batch_size supports single-label training only"):
        TextGCNClassifier(multi_label=True, batch_size=8).resolve_settings()
    with pytest.raises(OptionError, match="^auto is single-label only: drop multi_label$"):
        TextGCNClassifier(multi_label=True, auto=True).resolve_settings()
    with pytest.raises(OptionError, match="^label_sep must be a non-empty string"):
        TextGCNClassifier(label_sep="").resolve_settings()


def test_fit_corpus_fits_the_baseline_on_the_same_split_and_fit_does_not():
    corpus = tiny_corpus(60)
    clf = TextGCNClassifier(**FAST, model="gcn").fit_corpus(corpus)
    b = clf.baseline_
    assert b is not None and 0 <= b.test["accuracy"] <= 1
    assert set(b.test) >= {"accuracy", "macro_f1"}
    none = TextGCNClassifier(**FAST, model="gcn", baseline=False).fit_corpus(corpus)
    assert none.baseline_ is None
    train = [i for i in range(60) if corpus.is_train[i]]
    fitted = TextGCNClassifier(**FAST, model="gcn").fit(
        [corpus.texts[i] for i in train], [corpus.labels[i] for i in train])
    assert fitted.baseline_ is None  # no labelled test split to score it on


def test_batch_size_auto_chooses_after_the_graph_and_reports_it(monkeypatch):
    seen: list[str] = []
    clf = TextGCNClassifier(**FAST, model="gcn", batch_size="auto", baseline=False)
    clf.fit_corpus(tiny_corpus(60), report=lambda event, value: seen.append(event))
    assert seen == ["graph", "batching"] and clf.result_.config.batch_size == 0
    assert clf.batching_.batch_size == 0 and clf.get_params()["batch_size"] == "auto"
    monkeypatch.setattr(fitting, "available_bytes", lambda device: 2**20)  # 1 MiB free
    small = TextGCNClassifier(**FAST, model="gcn", batch_size="auto", baseline=False)
    small.fit_corpus(tiny_corpus(60))
    assert small.result_.config.batch_size > 0 and small.result_.config.optimizer == \
        "sparse-adam"
    assert small.batch_size == "auto"  # the choice is a fitted attribute, not a parameter


def _spy_on_baseline_fits(monkeypatch) -> list:
    """The ``class_weight`` of every fit of the linear baseline (grid points and refit)."""
    from gfbgcn.text.linear import baseline

    seen: list = []
    real = baseline.fit_point

    def fit_point(*args):
        seen.append(args[-1])  # fit_point(x, y, classes, point, seed, class_weight)
        return real(*args)

    monkeypatch.setattr(baseline, "fit_point", fit_point)
    return seen


def test_baseline_class_weight_reaches_every_fit_of_the_baseline(monkeypatch):
    corpus = skewed_corpus()
    seen = _spy_on_baseline_fits(monkeypatch)
    plain = TextGCNClassifier(**FAST, model="gcn").fit_corpus(corpus).baseline_
    fits = len(seen)
    balanced = TextGCNClassifier(**FAST, model="gcn", baseline_class_weight="balanced"
                                 ).fit_corpus(corpus).baseline_
    assert fits == len(plain.grid) + 1 and seen == [None] * fits + ["balanced"] * fits
    assert (plain.class_weight, balanced.class_weight) == (None, "balanced")
    # weighing the rare class changes what the grid's classifiers score on validation
    assert [r["val_log_loss"] for r in plain.grid] != [r["val_log_loss"] for r in balanced.grid]
    seen.clear()
    auto = TextGCNClassifier(**FAST, auto=True, budget=1, baseline_class_weight="balanced"
                             ).fit_corpus(corpus).auto_
    assert auto.baseline.class_weight == "balanced" and seen == ["balanced"] * fits
    assert auto.baseline.grid == balanced.grid  # the same split, the same weighted fits
    with pytest.raises(OptionError, match="^baseline_class_weight weighs the linear baseline"):
        TextGCNClassifier(baseline=False, baseline_class_weight="balanced").resolve_settings()


def test_score_of_a_multi_label_model_is_its_subset_accuracy_so_cross_validation_works():
    from sklearn.model_selection import cross_val_score

    rng = np.random.default_rng(0)
    pools = {"sport": ["goal", "match", "team"], "money": ["bank", "rates", "shares"],
             "news": ["today", "report", "press"]}
    texts, labels = [], []
    for i in range(36):
        names = ["sport"] if i % 3 == 0 else ["money"] if i % 3 == 1 else ["sport", "news"]
        texts.append(" ".join(rng.choice([w for n in names for w in pools[n]], 6)))
        labels.append("|".join(names))
    clf = TextGCNClassifier(multi_label=True, epochs=30, hidden=8, min_freq=1, window=3,
                            device="cpu", baseline=False)
    clf.fit(texts, labels)
    score = clf.score(texts[:6], labels[:6])
    pred = clf.predict(texts[:6])
    names = [str(c) for c in clf.classes_]
    truth = np.array([[int(n in lab.split("|")) for n in names] for lab in labels[:6]])
    assert score == pytest.approx(float((pred == truth).all(axis=1).mean()))
    assert clf.score(texts[:2], ["sport|unknown", "money"]) <= 0.5  # an unknown label: wrong
    scores = cross_val_score(TextGCNClassifier(multi_label=True, epochs=5, hidden=4,
                                               min_freq=1, window=3, device="cpu"),
                             texts, labels, cv=3)
    assert np.isfinite(scores).all()

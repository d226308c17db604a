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
        seen.append(args[5])  # fit_point(x, y, classes, point, seed, class_weight, weights)
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


# ---- class_weight and sample_weight ------------------------------------------------------------


def _skewed_split(n: int = 120) -> tuple[list[str], list[str], list[str], np.ndarray]:
    """``(X, y, X_test, y_test)`` of skewed_corpus: 'money' one document in four."""
    c = skewed_corpus(n)
    train, test = np.flatnonzero(c.is_train), np.flatnonzero(~c.is_train)
    return ([c.texts[i] for i in train], [c.labels[i] for i in train],
            [c.texts[i] for i in test], np.array([c.labels[i] for i in test]))


GRAPH = {**FAST, "model": "gcn", "epochs": 40, "lr": 0.05}


@pytest.mark.parametrize("extra", [{}, {"batch_size": 16, "fanout": 4}])
def test_class_weight_weighs_the_graph_models_loss(extra):
    """Balanced weights raise the rare class's predictions; a dict is each document's weight
    by its class (the same fit as those sample weights); a constant weight changes nothing,
    bit for bit (full batch and mini-batch alike)."""
    x, y, x_test, _ = _skewed_split()
    plain = TextGCNClassifier(**GRAPH, **extra).fit(x, y)
    balanced = TextGCNClassifier(**GRAPH, **extra, class_weight="balanced").fit(x, y)
    share = [np.mean(c.predict(x_test) == "money") for c in (plain, balanced)]
    assert share[1] > share[0]
    assert balanced.result_.config.class_weight == "balanced"
    by_dict = TextGCNClassifier(**GRAPH, **extra, class_weight={"money": 3}).fit(x, y)
    by_doc = TextGCNClassifier(**GRAPH, **extra).fit(
        x, y, sample_weight=[3.0 if v == "money" else 1.0 for v in y])
    np.testing.assert_allclose(by_dict.predict_proba(x_test), by_doc.predict_proba(x_test),
                               rtol=1e-5, atol=1e-7)
    assert not np.allclose(by_dict.predict_proba(x_test), plain.predict_proba(x_test))
    constant = TextGCNClassifier(**GRAPH, **extra).fit(x, y, sample_weight=np.full(len(y), 2.5))
    np.testing.assert_array_equal(constant.predict_proba(x_test), plain.predict_proba(x_test))
    assert [h["val_loss"] for h in constant.result_.history] == \
        [h["val_loss"] for h in plain.result_.history]


def test_a_weighted_fit_answers_a_document_without_known_words_by_the_weighted_prior():
    x, y, _, _ = _skewed_split()
    unknown = ["zzz qqq"]
    plain = TextGCNClassifier(**GRAPH).fit(x, y)
    balanced = TextGCNClassifier(**GRAPH, class_weight="balanced").fit(x, y)
    with pytest.warns(UserWarning, match="no word of the model's vocabulary"):
        np.testing.assert_allclose(plain.predict_proba(unknown), [[0.25, 0.75]], atol=0.02)
    with pytest.warns(UserWarning, match="no word of the model's vocabulary"):
        np.testing.assert_allclose(balanced.predict_proba(unknown), [[0.5, 0.5]])


def test_class_weight_reaches_the_linear_baseline_unless_baseline_class_weight_is_given(
        monkeypatch):
    corpus = skewed_corpus()
    seen = _spy_on_baseline_fits(monkeypatch)
    clf = TextGCNClassifier(**FAST, model="gcn", class_weight="balanced").fit_corpus(corpus)
    assert clf.baseline_.class_weight == "balanced" and set(seen) == {"balanced"}
    seen.clear()
    by_dict = TextGCNClassifier(**FAST, model="gcn", class_weight={"money": 3.0}
                                ).fit_corpus(corpus)
    assert by_dict.baseline_.class_weight == {"money": 3.0} and set(seen) == {None}  # folded
    seen.clear()
    own = TextGCNClassifier(**FAST, model="gcn", class_weight={"money": 3.0},
                            baseline_class_weight="balanced").fit_corpus(corpus)
    assert own.baseline_.class_weight == "balanced" and set(seen) == {"balanced"}
    assert own.result_.config.class_weight == {"money": 3.0}


def test_sample_weight_reaches_every_model_of_an_auto_search(monkeypatch):
    """The graph candidates' training and the linear models' fits all take the weights."""
    from gfbgcn.text.linear import baseline
    from gfbgcn.text.search import auto as search

    x, y, _, _ = _skewed_split(80)
    weights = np.linspace(0.5, 2.0, len(y))
    trained, fitted = [], []
    real_train, real_fit = search.train_text, baseline.fit_point

    def train_text(*args, sample_weight=None, **kwargs):
        trained.append(sample_weight)
        return real_train(*args, sample_weight=sample_weight, **kwargs)

    def fit_point(*args):
        fitted.append(args[6])
        return real_fit(*args)

    monkeypatch.setattr(search, "train_text", train_text)
    monkeypatch.setattr(baseline, "fit_point", fit_point)
    TextGCNClassifier(**FAST, auto=True, budget=1).fit(x, y, sample_weight=weights)
    assert len(trained) == 1 and np.array_equal(trained[0], weights)
    assert fitted and all(w is not None for w in fitted)


@pytest.mark.parametrize(("params", "weights", "message"), [
    ({}, [1.0, 2.0], r"^sample_weight must hold one weight per document of X: shape \(3,\), "
                     r"got \(2,\)$"),
    ({}, [[1.0], [1.0], [1.0]], r"^sample_weight must hold one weight per document"),
    ({}, [1.0, -1.0, 1.0], r"^sample_weight\[1\] is -1.0: a weight must be a finite number"),
    ({}, [1.0, float("nan"), 1.0], r"^sample_weight\[1\] is nan"),
    ({}, [0, 0, 0], "^sample_weight is zero for every document"),
    ({}, {1.0, 2.0, 3.0}, "^sample_weight is a set"),
    ({"class_weight": {"sports": 2.0}}, None, r"^class_weight names 1 class\(es\) that y "
                                              r"does not hold \('sports'\)"),
    ({"class_weight": "inverse"}, None, "^class_weight must be one of balanced"),
])
def test_bad_weights_are_one_line_before_any_work(params, weights, message):
    from gfbgcn.core.errors import UserError

    with pytest.raises(UserError, match=message):
        TextGCNClassifier(**params).fit(["goal match", "bank rates", "gene cell"],
                                        ["sport", "money", "science"], sample_weight=weights)


def test_fine_tuning_refuses_weights():
    with pytest.raises(OptionError, match="^encoder_finetune trains unweighted: drop "
                                          "class_weight$"):
        TextGCNClassifier(encoder="enc", encoder_finetune=True,
                          class_weight="balanced").resolve_settings()


# ---- the validation split the estimator draws ------------------------------------------------


def _four_topics() -> tuple[list[str], list[str]]:
    """60 documents of three topics and 3 of a fourth class (``other``): a random 10 % (6
    documents) misses the small class for most seeds."""
    from tests.text.toydata import topic_documents

    x, y = topic_documents(60)
    small, _ = topic_documents(3, seed=1, topics=("science",))
    return x + small, y + ["other"] * 3


def test_the_estimators_validation_split_has_every_class_of_two_documents():
    x, y = _four_topics()
    for seed in range(3):
        clf = TextGCNClassifier(**FAST, model="gcn", random_state=seed).fit(x, y)
        data = clf.graph_.to_pyg(clf.val_ratio, seed)
        held_out = {clf.graph_.label_names[int(c)] for c in data.y[data.val_mask]}
        assert held_out == {"sport", "money", "science", "other"}, seed
        assert int(data.val_mask.sum()) == round(0.1 * len(x))  # the size of before


def test_benchmarks_and_multi_label_keep_the_random_validation_split():
    """The paper's protocol (a random 10 %) stays for its benchmarks; label sets are drawn at
    random too (a combination of labels is too rare a class)."""
    from gfbgcn.text.corpus.splits import validation_docs

    x, y = _four_topics()
    corpus = Corpus("bench", x, y, np.ones(len(x), bool), benchmark="r8")
    clf = TextGCNClassifier(**FAST, model="gcn", baseline=False).fit_corpus(corpus)
    train = np.arange(len(x))
    random = np.sort(validation_docs(train, clf.graph_.labels, 0.1, 0))
    assert not clf.graph_.stratify_validation
    np.testing.assert_array_equal(np.sort(clf.graph_.validation_docs(0.1, 0)), random)
    multi = TextGCNClassifier(**FAST, model="gcn", multi_label=True).fit(x, [[v] for v in y])
    assert not multi.graph_.stratify_validation
    own = TextGCNClassifier(**FAST, model="gcn").fit(x, y)
    assert own.graph_.stratify_validation


def test_the_run_directory_says_how_the_validation_split_was_drawn(tmp_path):
    import json

    clf = TextGCNClassifier(**FAST, model="gcn").fit_corpus(tiny_corpus(60))
    config = json.loads((clf.write_run(tmp_path / "run") / "config.json").read_text())
    assert config["validation_split"] == "stratified"

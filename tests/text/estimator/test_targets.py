"""Multi-label ``y`` in the forms scikit-learn users pass (``gfbgcn.text.estimator.targets``):
read, trained on, given back by ``predict``, kept by ``save``/``load``."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.preprocessing import MultiLabelBinarizer

from gfbgcn import TextGCNClassifier
from gfbgcn.core.errors import UserError
from gfbgcn.text.estimator.targets import read_targets

SETS = [["sport"], ["money"], ["news", "sport"], [], ["money", "news"]]


def test_every_form_is_read_into_the_same_label_sets():
    mlb = MultiLabelBinarizer()
    y = mlb.fit_transform(SETS)
    joined = read_targets(["|".join(s) for s in SETS], 5, "|")
    assert joined.form == "joined" and joined.sets == SETS
    assert joined.classes.tolist() == ["money", "news", "sport"]
    for given in (SETS, [tuple(s) for s in SETS], [set(s) for s in SETS],
                  [np.array(s, dtype=object) for s in SETS]):
        lists = read_targets(given, 5, "|")
        assert lists.form == "lists" and lists.classes.tolist() == ["money", "news", "sport"]
        assert [sorted(s) for s in lists.sets] == [sorted(s) for s in SETS]
    for given, form in ((y, "indicator"), (y.tolist(), "indicator"), (list(y), "indicator"),
                        (y.astype(bool), "indicator"), (sp.csr_matrix(y), "sparse"),
                        (sp.csr_array(y), "sparse")):
        read = read_targets(given, 5, "|")
        assert read.form == form and read.classes.tolist() == [0, 1, 2], form
        # the columns of MultiLabelBinarizer's classes_, in order
        assert [[mlb.classes_[int(j)] for j in s] for s in read.sets] == \
            [sorted(s) for s in SETS]


def test_integer_labels_keep_their_type_and_numeric_order():
    read = read_targets([[10, 2], [7], [2]], 3, "|")
    assert read.classes.tolist() == [2, 7, 10] and read.sets == [["10", "2"], ["7"], ["2"]]
    assert read.give_back(np.array([[1, 0, 1], [0, 0, 0], [0, 1, 0]])) == [[2, 10], [], [7]]


def test_predictions_are_given_back_in_the_fitted_form():
    indicator = np.array([[1, 0, 1], [0, 1, 0]])
    y = np.array([[1, 0, 0], [0, 1, 1], [0, 0, 1]], dtype=np.int8)
    dense = read_targets(y, 3, "|").give_back(indicator)
    assert isinstance(dense, np.ndarray) and dense.dtype == np.int8
    for given, kind in ((sp.csr_matrix(y), sp.csr_matrix), (sp.csr_array(y), sp.csr_array)):
        back = read_targets(given, 3, "|").give_back(indicator)
        assert type(back) is kind and back.dtype == np.int8
        np.testing.assert_array_equal(back.toarray(), indicator)
    joined = read_targets(["a|c", "b", "c"], 3, "|").give_back(indicator)
    assert joined.dtype == np.int64 and joined.tolist() == indicator.tolist()


def test_the_callers_sparse_matrix_is_not_written():
    y = sp.csr_matrix(np.array([[1, 0], [0, 1]]))
    y.data[0] = 0  # a stored zero: not a label, and left where it is
    read = read_targets(y, 2, "|")
    assert read.sets == [[], ["1"]] and y.nnz == 2


@pytest.mark.parametrize(("y", "message"), [
    (np.array([[0, 2], [1, 0]]), "^y is a matrix of values other than 0 and 1"),
    (sp.csr_matrix(np.array([[0, 2], [1, 0]])), "^y is a matrix of values other than 0 and 1"),
    (np.zeros((3, 2)), "^X and y have different lengths: 2 documents, 3 rows"),
    ([["a"], ["b"], ["c"]], "^X and y have different lengths: 2 documents, 3 label sets"),
    ([["a", 1], ["b"]], r"^y mixes label types \(number, str\)"),
    ([["a"], "b"], r"^y\[1\] is str \('b'\): a multi-label y holds each document's labels"),
    ([["a", None], ["b"]], r"^y\[0\] holds the label None: a label is a non-empty string"),
    ([["a|b"], ["c"]], r"^y\[0\] holds the label 'a\|b', which contains label_sep '\|'"),
    ([[], []], "^no document of y has a label"),
    ({"a", "b"}, "^y is a set"),
    (None, "^TextGCNClassifier requires y to be passed"),
])
def test_bad_multi_label_y_is_one_line(y, message):
    with pytest.raises(UserError, match=message):
        read = read_targets(y, 2, "|")
        read.joined("|")


# ---- through the classifier --------------------------------------------------------------------

FAST = {"multi_label": True, "epochs": 30, "hidden": 8, "min_freq": 1, "window": 3,
        "device": "cpu", "baseline": False}


@pytest.fixture(scope="module")
def documents():
    """``(texts, label sets)``: 36 documents of three topics, one in three with two labels."""
    rng = np.random.default_rng(0)
    pools = {"sport": ["goal", "match", "team"], "money": ["bank", "rates", "shares"],
             "news": ["today", "report", "press"]}
    texts, sets = [], []
    for i in range(36):
        names = ["sport"] if i % 3 == 0 else ["money"] if i % 3 == 1 else ["sport", "news"]
        texts.append(" ".join(rng.choice([w for n in names for w in pools[n]], 6)))
        sets.append(names)
    return texts, sets


def test_every_form_trains_the_same_model_and_gets_its_form_back(documents, tmp_path):
    """The forms name the labels differently (column indices or the labels), in the same
    order: the same model, the same probabilities, each prediction in its own form; saved and
    loaded, the same again."""
    texts, sets = documents
    y = MultiLabelBinarizer().fit_transform(sets)
    forms = {"joined": ["|".join(s) for s in sets], "lists": sets,
             "sets": [set(s) for s in sets], "indicator": y, "bool": y.astype(bool),
             "sparse": sp.csr_matrix(y), "sparse array": sp.csr_array(y)}
    new = texts[:4] + ["goal and rates today"]
    reference = None
    for name, given in forms.items():
        clf = TextGCNClassifier(**FAST).fit(texts, given)
        proba = clf.predict_proba(new)
        if reference is None:
            reference = proba
        np.testing.assert_array_equal(proba, reference, err_msg=name)
        pred = clf.predict(new)
        indicator = (proba >= clf._threshold).astype(np.int64)
        loaded = TextGCNClassifier.load(clf.save(tmp_path / name.replace(" ", "-")))
        np.testing.assert_allclose(loaded.predict_proba(new), proba, rtol=1e-6, err_msg=name)
        again = loaded.predict(new)
        if name in ("lists", "sets"):
            assert clf.classes_.tolist() == ["money", "news", "sport"]
            assert pred == [clf.classes_[np.flatnonzero(r)].tolist() for r in indicator]
            assert again == pred
            continue
        assert type(again) is type(pred) and again.dtype == pred.dtype, name
        if sp.issparse(pred):
            pred, again = pred.toarray(), again.toarray()
        assert pred.dtype == (np.int64 if name in ("joined", "indicator", "sparse",
                                                   "sparse array") else bool)
        np.testing.assert_array_equal(pred.astype(np.int64), indicator)
        np.testing.assert_array_equal(again, pred)
        assert clf.score(texts[:6], given[:6]) == loaded.score(texts[:6], given[:6])


def test_a_label_column_without_a_training_document_stays_a_column(documents):
    texts, sets = documents
    y = np.c_[MultiLabelBinarizer().fit_transform(sets), np.zeros(36, dtype=np.int64)]
    clf = TextGCNClassifier(**FAST).fit(texts, y)
    assert clf.classes_.tolist() == [0, 1, 2, 3]
    assert clf.predict(texts[:3]).shape == (3, 4) and not clf.predict(texts).any(axis=0)[3]


def test_score_takes_y_in_any_form(documents):
    texts, sets = documents
    clf = TextGCNClassifier(**FAST).fit(texts, sets)
    score = clf.score(texts[:9], sets[:9])
    assert score == clf.score(texts[:9], ["|".join(s) for s in sets[:9]])
    assert clf.score(texts[:2], [["sport", "unknown"], ["money"]]) <= 0.5  # unknown: wrong


def test_unlabelled_documents_of_a_multi_label_fit_are_scored_by_no_metric(documents):
    texts, sets = documents
    clf = TextGCNClassifier(**FAST).fit(texts[:30], sets[:30], X_unlabeled=texts[30:])
    assert clf.result_.test is None and len(clf.predict(texts[30:])) == 6


def test_multi_label_training_takes_balanced_class_weight_and_sample_weight(documents):
    texts, sets = documents
    plain = TextGCNClassifier(**FAST).fit(texts, sets)
    weighted = TextGCNClassifier(**FAST, class_weight="balanced").fit(
        texts, sets, sample_weight=np.linspace(0.5, 1.5, 36))
    assert weighted.result_.config.class_weight == "balanced"
    assert not np.allclose(plain.predict_proba(texts), weighted.predict_proba(texts))

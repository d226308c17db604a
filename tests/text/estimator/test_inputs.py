"""What ``fit`` is given: labels of one kind, a corpus with the unlabeled documents last."""

from __future__ import annotations

import numpy as np
import pytest

from gfbgcn.core.errors import UserError
from gfbgcn.text.estimator.inputs import class_labels, labelled_corpus


def test_class_labels_sorted_in_their_own_type():
    classes, labels = class_labels([10, 2, 10, 7], 4)
    assert classes.tolist() == [2, 7, 10] and labels == ["10", "2", "10", "7"]
    classes, labels = class_labels(np.array(["b", "a", "b"]), 3)
    assert classes.tolist() == ["a", "b"] and labels == ["b", "a", "b"]
    classes, labels = class_labels([True, False, True], 3)
    assert classes.tolist() == [False, True] and labels == ["True", "False", "True"]
    classes, _ = class_labels([1.0, 2.0, 1.0], 3)  # whole-number floats are class labels
    assert classes.tolist() == [1.0, 2.0]


@pytest.mark.parametrize(("y", "message"), [
    ([1, np.nan, 2], r"y\[1\] is missing \(nan\)"),
    ([1, 2, 2.5], "continuous"),
    (["a", b"b", "a"], r"y mixes label types \(bytes, str\)"),
    ([object(), object(), object()], "labels must be strings or numbers"),
    (None, "requires y to be passed, but the target y is None"),
    ([1, np.inf, 2], r"^y\[1\] is inf: a class label must be a string or a finite whole number$"),
    (np.array([1.0, 2.0, -np.inf]), r"^y\[2\] is -inf"),
    (np.array([[1, 2]] * 3), "one-dimensional"),
])
def test_bad_labels(y, message):
    with pytest.raises(UserError, match=message):
        class_labels(y, 3)


def test_a_column_vector_y_is_raveled_with_sklearns_warning():
    from sklearn.exceptions import DataConversionWarning

    with pytest.warns(DataConversionWarning, match="column-vector y was passed"):
        classes, labels = class_labels(np.array([["b"], ["a"], ["b"]]), 3)
    assert classes.tolist() == ["a", "b"] and labels == ["b", "a", "b"]


def test_labelled_corpus_puts_unlabeled_documents_in_the_test_split():
    corpus = labelled_corpus(["x y", "y z"], ["b", "a"], ["z x", "x"])
    assert corpus.texts == ["x y", "y z", "z x", "x"]
    assert corpus.is_train.tolist() == [True, True, False, False]
    assert corpus.label_names == ["a", "b"]  # the placeholder adds no class

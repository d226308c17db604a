"""Classification metrics against their definitions (a hand-worked example) and scikit-learn."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import (
    accuracy_score,
    confusion_matrix,
    precision_recall_fscore_support,
)

from gfbgcn.core.metrics import classification_metrics


def test_hand_worked_example_with_a_class_never_predicted() -> None:
    """4 classes; class 2 is true twice but never predicted, class 3 occurs nowhere.

    class 0: predicted at 0, 1, 5 (tp 2 of 3 predicted, 2 of 3 true): P = R = F1 = 2/3
    class 1: predicted at 2, 3, 4, 6 (tp 2 of 4 predicted, 2 of 2 true): P = 1/2, R = 1, F1 = 2/3
    class 2: never predicted: P = 0 (zero division), R = 0, F1 = 0
    class 3: neither true nor predicted: left out of the macro average.
    """
    y_true = np.array([0, 0, 0, 1, 1, 2, 2])
    y_pred = np.array([0, 0, 1, 1, 1, 0, 1])
    m = classification_metrics(y_true, y_pred, num_classes=4)
    assert m["accuracy"] == pytest.approx(4 / 7)
    assert m["macro_precision"] == pytest.approx((2 / 3 + 1 / 2 + 0) / 3)  # 7/18, not 7/24
    assert m["macro_recall"] == pytest.approx((2 / 3 + 1 + 0) / 3)
    assert m["macro_f1"] == pytest.approx((2 / 3 + 2 / 3 + 0) / 3)
    assert m["confusion_matrix"] == [[2, 1, 0, 0], [0, 2, 0, 0], [1, 1, 0, 0], [0, 0, 0, 0]]


def test_macro_average_runs_over_the_union_of_true_and_predicted_labels() -> None:
    """Class 1 is predicted but never true: P = 0 (tp 0 of 1), R = 0 (zero division), F1 = 0;
    class 0: P = 1, R = 1/2, F1 = 2/3."""
    m = classification_metrics(np.array([0, 0]), np.array([0, 1]), num_classes=3)
    assert m["accuracy"] == pytest.approx(1 / 2)
    assert m["macro_precision"] == pytest.approx(1 / 2)
    assert m["macro_recall"] == pytest.approx(1 / 4)
    assert m["macro_f1"] == pytest.approx(1 / 3)


def test_empty_input_gives_zeros() -> None:
    m = classification_metrics(np.array([], dtype=int), np.array([], dtype=int), 3)
    assert (m["accuracy"], m["macro_precision"], m["macro_recall"], m["macro_f1"]) == (0, 0, 0, 0)
    assert m["confusion_matrix"] == [[0] * 3] * 3


def test_metrics_match_scikit_learn():
    rng = np.random.default_rng(0)
    y_true = rng.integers(0, 6, 500)
    y_pred = np.where(rng.random(500) < 0.6, y_true, rng.integers(0, 7, 500))
    y_pred[y_pred == 6] = 5
    y_true[:3] = 4  # a class never predicted correctly
    ours = classification_metrics(y_true, y_pred, 7)
    p, r, f, _ = precision_recall_fscore_support(y_true, y_pred, average="macro", zero_division=0)
    assert ours["accuracy"] == pytest.approx(accuracy_score(y_true, y_pred))
    assert (ours["macro_precision"], ours["macro_recall"], ours["macro_f1"]) == pytest.approx(
        (p, r, f))
    np.testing.assert_array_equal(np.array(ours["confusion_matrix"])[:6, :6],
                                  confusion_matrix(y_true, y_pred, labels=range(6)))

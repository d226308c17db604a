"""Classification metrics of one run, computed by scikit-learn."""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.metrics import confusion_matrix, precision_recall_fscore_support


def classification_metrics(
    y_true: np.ndarray, y_pred: np.ndarray, num_classes: int
) -> dict[str, Any]:
    """Accuracy, macro precision/recall/F1 and the ``[C, C]`` confusion matrix.

    The macro average runs over the classes present in ``y_true`` or ``y_pred`` (scikit-learn's
    default label set); a class never predicted has precision 0 (``zero_division=0``).  An
    empty input gives zeros rather than NaN, so records stay valid JSON.
    """
    y_true = np.asarray(y_true, dtype=np.int64)
    y_pred = np.asarray(y_pred, dtype=np.int64)
    if len(y_true) == 0:  # scikit-learn refuses empty input; callers report the empty split
        cm, p, r, f = np.zeros((num_classes, num_classes), dtype=np.int64), 0.0, 0.0, 0.0
    else:
        cm = confusion_matrix(y_true, y_pred, labels=np.arange(num_classes))
        p, r, f, _ = precision_recall_fscore_support(
            y_true, y_pred, average="macro", zero_division=0
        )
    return {
        "accuracy": float(np.trace(cm) / max(len(y_true), 1)),
        "macro_precision": float(p),
        "macro_recall": float(r),
        "macro_f1": float(f),
        "confusion_matrix": cm.tolist(),
    }


def test_metrics(y_true: np.ndarray, y_pred: np.ndarray, num_classes: int
                 ) -> dict[str, Any] | None:
    """:func:`classification_metrics` of the test documents, or ``None`` when there is none
    to score (a run whose test documents all lack a label, or that has none): a record then
    says that nothing was measured rather than showing zeros."""
    return classification_metrics(y_true, y_pred, num_classes) if len(y_true) else None


def mean_log_loss(y: np.ndarray, probs: np.ndarray) -> float:
    """Mean negative log-probability of the true classes ``y`` ``[n]`` under ``probs``
    ``[n, C]`` (clipped at 1e-12, so a zero probability costs about 27.6, not infinity)."""
    return float(-np.mean(np.log(np.clip(probs[np.arange(len(y)), y], 1e-12, None))))


def per_class_scores(y_true: np.ndarray, y_pred: np.ndarray, num_labels: int
                     ) -> dict[str, np.ndarray]:
    """Precision, recall, F1 and support of each of ``num_labels`` classes, computed by
    scikit-learn (``zero_division=0``: a class never predicted has precision 0).

    ``y_true`` and ``y_pred`` are class indices ``[n]`` in ``0..num_labels-1``, or 0/1 indicator
    matrices ``[n, num_labels]`` (multi-label).  Every class gets a row, also one absent from
    both; support counts the documents whose true labels hold the class."""
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    if len(y_true) == 0:
        zeros = np.zeros(num_labels)
        return {"precision": zeros, "recall": zeros, "f1": zeros,
                "support": np.zeros(num_labels, dtype=np.int64)}
    labels = np.arange(num_labels) if y_true.ndim == 1 else None  # indicator: every column
    p, r, f, s = precision_recall_fscore_support(y_true, y_pred, labels=labels, average=None,
                                                 zero_division=0)
    return {"precision": np.asarray(p, dtype=np.float64), "recall": np.asarray(r, np.float64),
            "f1": np.asarray(f, dtype=np.float64), "support": np.asarray(s, dtype=np.int64)}

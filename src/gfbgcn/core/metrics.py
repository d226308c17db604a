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


def mean_log_loss(y: np.ndarray, probs: np.ndarray) -> float:
    """Mean negative log-probability of the true classes ``y`` ``[n]`` under ``probs``
    ``[n, C]`` (clipped at 1e-12, so a zero probability costs about 27.6, not infinity)."""
    return float(-np.mean(np.log(np.clip(probs[np.arange(len(y)), y], 1e-12, None))))

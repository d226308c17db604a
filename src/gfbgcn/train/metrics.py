"""Classification metrics (accuracy, macro precision/recall/F1, confusion matrix)."""

from __future__ import annotations

from typing import Any

import numpy as np


def confusion_matrix(y_true: np.ndarray, y_pred: np.ndarray, num_classes: int) -> np.ndarray:
    """``C[i, j]`` = number of samples of true class i predicted as j."""
    y_true = np.asarray(y_true, dtype=np.int64)
    y_pred = np.asarray(y_pred, dtype=np.int64)
    flat = np.bincount(y_true * num_classes + y_pred, minlength=num_classes * num_classes)
    return flat.reshape(num_classes, num_classes)


def classification_metrics(
    y_true: np.ndarray, y_pred: np.ndarray, num_classes: int
) -> dict[str, Any]:
    """Accuracy and macro P/R/F1 over the classes present in ``y_true`` or ``y_pred``.

    Matches scikit-learn's ``precision_recall_fscore_support(average="macro",
    zero_division=0)``: a class never predicted has precision 0, and the average runs over the
    union of true and predicted labels.
    """
    cm = confusion_matrix(y_true, y_pred, num_classes)
    tp = np.diag(cm).astype(np.float64)
    pred_pos = cm.sum(axis=0).astype(np.float64)
    true_pos = cm.sum(axis=1).astype(np.float64)
    present = (pred_pos > 0) | (true_pos > 0)
    precision = np.divide(tp, pred_pos, out=np.zeros_like(tp), where=pred_pos > 0)
    recall = np.divide(tp, true_pos, out=np.zeros_like(tp), where=true_pos > 0)
    denom = precision + recall
    f1 = np.divide(2 * precision * recall, denom, out=np.zeros_like(tp), where=denom > 0)
    n = max(int(cm.sum()), 1)
    return {
        "accuracy": float(tp.sum() / n),
        "macro_precision": float(precision[present].mean()) if present.any() else 0.0,
        "macro_recall": float(recall[present].mean()) if present.any() else 0.0,
        "macro_f1": float(f1[present].mean()) if present.any() else 0.0,
        "confusion_matrix": cm.tolist(),
    }

"""Multi-label text classification: label sets, metrics and the validation-chosen threshold.

A document's label field holds its labels joined by a separator (``"econ|trade"``).  The model
outputs one logit per label; training uses BCE-with-logits; a label is predicted when its
sigmoid probability reaches a threshold chosen on the validation documents
(:func:`choose_threshold`, a grid search maximising micro F1).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from gfbgcn.core.errors import ParameterWarning

THRESHOLD_GRID: tuple[float, ...] = tuple(np.round(np.arange(0.05, 0.951, 0.05), 2).tolist())


def split_labels(labels: Sequence[str], sep: str = "|") -> list[list[str]]:
    """Each label field split on ``sep``, stripped, empty parts and duplicates dropped."""
    if not sep:
        raise ValueError("the label separator must not be empty")
    out = []
    for field in labels:
        seen: dict[str, None] = {}
        for part in str(field).split(sep):
            part = part.strip()
            if part:
                seen.setdefault(part, None)
        out.append(list(seen))
    return out


class SingleLabelsWarning(ParameterWarning):
    """Multi-label training of labels that hold no separator: one label per document."""


def warn_if_no_separator(labels: Sequence[str], sep: str = "|") -> None:
    """Warn when no label field contains ``sep`` (``--multi-label`` with the wrong
    ``--label-sep``, or a single-label corpus): every document would have one label."""
    if sep and not any(sep in str(field) for field in labels):
        warnings.warn(SingleLabelsWarning(
            "{0}: no label contains the separator {sep!r}, so every document has exactly one "
            "label (check {1}, or drop {0})", "multi_label", "label_sep", sep=sep), stacklevel=2)


def multi_hot(label_sets: Sequence[Sequence[str]], label_names: Sequence[str] | None = None
              ) -> tuple[np.ndarray, list[str]]:
    """``(Y [D, L] float32 0/1, label_names)``; names sorted unless given."""
    if label_names is None:
        label_names = sorted({lab for labs in label_sets for lab in labs})
    index = {name: i for i, name in enumerate(label_names)}
    y = np.zeros((len(label_sets), len(label_names)), dtype=np.float32)
    rows = [i for i, labs in enumerate(label_sets) for _ in labs]
    cols = [index[lab] for labs in label_sets for lab in labs]
    y[rows, cols] = 1.0
    return y, list(label_names)


def multilabel_metrics(y_true: np.ndarray, y_pred: np.ndarray) -> dict[str, Any]:
    """Micro/macro F1, precision, recall and subset accuracy of 0/1 matrices ``[N, L]``.

    Matches scikit-learn's ``f1_score(average="micro"|"macro", zero_division=0)`` (macro over
    all labels) and ``accuracy_score`` (exact set match) on indicator matrices.
    """
    t = np.asarray(y_true).astype(bool)
    p = np.asarray(y_pred).astype(bool)
    if t.shape != p.shape:
        raise ValueError(f"shapes differ: {t.shape} vs {p.shape}")
    tp = (t & p).sum(0).astype(np.float64)
    fp = (~t & p).sum(0).astype(np.float64)
    fn = (t & ~p).sum(0).astype(np.float64)

    def f1(tp_, fp_, fn_):
        denom = 2 * tp_ + fp_ + fn_
        return np.divide(2 * tp_, denom, out=np.zeros_like(np.asarray(tp_, float)), where=denom > 0)

    def ratio(a, b):
        return np.divide(a, b, out=np.zeros_like(np.asarray(a, float)), where=b > 0)

    n = t.shape[0]
    return {
        "micro_f1": float(f1(tp.sum(), fp.sum(), fn.sum())),
        "macro_f1": float(f1(tp, fp, fn).mean()) if t.shape[1] else 0.0,
        "micro_precision": float(ratio(tp.sum(), tp.sum() + fp.sum())),
        "micro_recall": float(ratio(tp.sum(), tp.sum() + fn.sum())),
        "subset_accuracy": float((t == p).all(1).mean()) if n else 0.0,
        "num_docs": int(n),
    }


def choose_threshold(
    y_true: np.ndarray, probs: np.ndarray, grid: Sequence[float] = THRESHOLD_GRID
) -> tuple[float, float]:
    """``(threshold, micro F1)`` maximising micro F1 over ``grid`` (ties: the smallest)."""
    best_t, best_f1 = 0.5, -1.0
    for t in grid:
        score = multilabel_metrics(y_true, probs >= t)["micro_f1"]
        if score > best_f1 + 1e-12:
            best_t, best_f1 = float(t), score
    return best_t, best_f1

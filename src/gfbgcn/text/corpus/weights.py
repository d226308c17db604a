r"""How much each training document's loss term weighs: scikit-learn's ``class_weight`` and
``sample_weight``.

``class_weight`` (:data:`gfbgcn.text.params.PARAMETERS`) is ``None`` (every class weighs 1),
``"balanced"`` or a dict ``{label name: weight}`` (a class not in it weighs 1).  ``balanced``
is scikit-learn's ``compute_class_weight("balanced")`` over the training documents: with
:math:`n` of them in :math:`k` classes, :math:`n_c` of class :math:`c`,

.. math::
    w_c = \frac{n}{k \, n_c},

so that every class weighs as much in total (a class without a training document weighs 1: it
is in no training loss).  A document's weight is its class's times its ``sample_weight``.

Multi-label (``[D, L]`` 0/1 targets, binary cross-entropy per label): ``balanced`` weighs
label :math:`l`'s positive terms :math:`n / (2 P_l)` and its negative terms :math:`n / (2 N_l)`
(:math:`P_l + N_l = n`; a label without positives or negatives among the training documents
keeps 1), as the multi-label baseline's per-label ``class_weight="balanced"`` does; a dict is
refused there (``balanced`` or ``sample_weight`` say what is meant), and a document's
``sample_weight`` multiplies each of its terms.

The losses that take these weights are means weighted by them,
:math:`\sum_i w_i \ell_i / \sum_i w_i`: a constant weight changes nothing, and the learning
rate keeps its meaning whatever their scale.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from gfbgcn.core.errors import OptionError, UserError
from gfbgcn.text.params import CLASS_WEIGHTS

#: What ``class_weight`` holds once resolved: a name, or weights by label name.
ClassWeight = str | dict[str, float] | None


def check_class_weight(value: Any, multi_label: bool = False) -> ClassWeight:
    """``value`` as a class weighting (a dict's keys as label names, ``str(key)``, and its
    weights as floats); an :class:`OptionError` naming ``class_weight`` for anything else: a
    dict in multi-label training, a weight that is not a finite number >= 0, or one whose
    weights are all 0."""
    if value is None or (isinstance(value, str) and value in CLASS_WEIGHTS):
        return value
    if not isinstance(value, Mapping):
        raise OptionError("{0} must be one of {names} or a dict {{class: weight}} (or "
                          "None), got {value!r:.60}", "class_weight",
                          names=", ".join(CLASS_WEIGHTS), value=value)
    if multi_label:
        raise OptionError("{0} as a dict is single-label: with {1}, give 'balanced' or "
                          "sample_weight", "class_weight", "multi_label")
    weights: dict[str, float] = {}
    for key, weight in value.items():
        if (isinstance(weight, bool) or not isinstance(weight, numbers.Real)
                or not math.isfinite(weight) or weight < 0):
            raise OptionError("{0}[{key!r}] must be a finite number >= 0, got {weight!r}",
                              "class_weight", key=key, weight=weight)
        weights[str(key)] = float(weight)
    if weights and not any(weights.values()):
        raise OptionError("{0} weighs every class it names 0", "class_weight")
    return weights


def check_known_classes(class_weight: ClassWeight, label_names: Sequence[str]) -> None:
    """Refuse a ``class_weight`` dict naming a class the labels do not hold (a typo would
    otherwise weigh nothing)."""
    if not isinstance(class_weight, dict):
        return
    unknown = [k for k in class_weight if k not in set(label_names)]
    if unknown:
        raise UserError(f"class_weight names {len(unknown)} class(es) that y does not hold "
                        f"({', '.join(repr(k) for k in unknown[:3])}); the classes are "
                        f"{', '.join(repr(n) for n in label_names[:6])}"
                        f"{' ...' if len(label_names) > 6 else ''}")


def class_weights(labels: np.ndarray, label_names: Sequence[str], class_weight: ClassWeight,
                  train: np.ndarray) -> np.ndarray:
    """``[C]`` float64 weight of each class (``labels`` ``[D]`` class ids, ``train`` ``[D]``
    bool or indices: the training documents ``balanced`` counts)."""
    weights = np.ones(len(label_names))
    if isinstance(class_weight, dict):
        for c, name in enumerate(label_names):
            weights[c] = class_weight.get(name, 1.0)
    elif class_weight == "balanced":
        counts = np.bincount(np.asarray(labels)[train], minlength=len(label_names))
        present = counts > 0
        weights[present] = counts[present].sum() / (present.sum() * counts[present])
    return weights


def label_weights(targets: np.ndarray, class_weight: ClassWeight, train: np.ndarray
                  ) -> np.ndarray:
    """``[D, L]`` float64 weight of each document's term of each label (multi-label
    ``targets`` ``[D, L]`` 0/1; ``balanced`` counts over the ``train`` documents)."""
    y = np.asarray(targets) > 0
    weights = np.ones(y.shape)
    if class_weight != "balanced":
        return weights
    n = len(y[train])
    positive = y[train].sum(axis=0)
    both = (positive > 0) & (positive < n)  # a label to balance
    pos = np.where(both, n / (2.0 * np.maximum(positive, 1)), 1.0)
    neg = np.where(both, n / (2.0 * np.maximum(n - positive, 1)), 1.0)
    return np.where(y, pos[None, :], neg[None, :])


def document_weights(labels: np.ndarray, label_names: Sequence[str], class_weight: ClassWeight,
                     sample_weight: np.ndarray | None, train: np.ndarray,
                     targets: np.ndarray | None = None) -> np.ndarray | None:
    """The weight of each document's loss term: ``[D]`` (multi-label ``targets``: ``[D, L]``)
    float32, ``None`` where every term weighs the same (no weighting, or a constant one: the
    weighted mean is then the plain one, which is computed instead, so that results stay
    those of an unweighted run bit for bit).

    Args:
        labels: ``[D]`` class ids of the documents (single-label).
        label_names: the class names, in id order.
        class_weight: see the module docstring.
        sample_weight: ``[D]`` each document's own weight, or None.
        train: ``[D]`` bool, the training documents (``balanced`` counts them).
        targets: ``[D, L]`` 0/1 labels of a multi-label run.
    """
    if targets is not None:
        weights = label_weights(targets, class_weight, train)
    else:
        weights = class_weights(labels, label_names, class_weight, train)[np.asarray(labels)]
    if sample_weight is not None:
        sw = np.asarray(sample_weight, dtype=np.float64)
        weights = weights * (sw[:, None] if weights.ndim == 2 else sw)
    kept = weights[np.asarray(train)]
    if kept.size == 0 or np.all(kept == kept.flat[0]):
        return None
    return weights.astype(np.float32)


def folded_weights(labels: np.ndarray, label_names: Sequence[str], class_weight: ClassWeight,
                   sample_weight: np.ndarray | None
                   ) -> tuple[str | None, np.ndarray | None]:
    """``(class_weight, sample_weight)`` for scikit-learn's linear estimators: a named weighting
    stays a name (the estimators compute it, on the documents each fit sees), a dict becomes
    each document's weight, multiplied into ``sample_weight`` ``[D]``."""
    if not isinstance(class_weight, dict):
        return class_weight, sample_weight
    weights = class_weights(labels, label_names, class_weight, np.ones(len(labels), bool))
    per_doc = weights[np.asarray(labels)]
    return None, per_doc if sample_weight is None else per_doc * np.asarray(sample_weight)


def weighted_prior(labels: np.ndarray, label_names: Sequence[str], class_weight: ClassWeight,
                   sample_weight: np.ndarray | None, train: np.ndarray,
                   targets: np.ndarray | None = None) -> np.ndarray | None:
    """``[C]`` (multi-label: ``[L]``) the class (label) frequencies of the ``train`` documents
    as the weighted loss sees them, each document counted by its weight: what a model trained
    with these weights answers for a document it knows nothing of (``balanced``: a uniform
    prior; multi-label: each label's weighted share of positives).  ``None`` without
    weighting (the plain frequencies are then the predictor's own)."""
    if class_weight is None and sample_weight is None:
        return None
    train = np.asarray(train)
    sw = np.ones(len(labels)) if sample_weight is None else np.asarray(sample_weight, float)
    if targets is not None:
        w = (label_weights(targets, class_weight, train) * sw[:, None])[train]
        y = (np.asarray(targets) > 0)[train]
        return (w * y).sum(axis=0) / np.maximum(w.sum(axis=0), np.finfo(float).tiny)
    per_doc = class_weights(labels, label_names, class_weight, train)[np.asarray(labels)] * sw
    mass = np.bincount(np.asarray(labels)[train], weights=per_doc[train],
                       minlength=len(label_names))
    return mass / max(float(mass.sum()), np.finfo(float).tiny)

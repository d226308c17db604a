"""The linear baseline of a multi-label corpus: one binary linear model per label over the same
n-gram TF-IDF features as the single-label baseline (:mod:`gfbgcn.text.linear.baseline`).

Features: :class:`~gfbgcn.text.linear.ngrams.NgramFeatures` (word 1-2-grams and ``char_wb``
2-5-grams, hashed word n-grams at scale), vocabulary and IDF from the texts of the whole
training split.  Classifier: per label, logistic regression (liblinear; at scale SGD with the
logistic loss, whose cost is one pass over the data per label), its regularisation chosen from
a small grid (:func:`multilabel_grid`) on the graph model's validation documents, fitted on its
training documents: the highest validation micro F1 at the point's best threshold, ties broken
by the lower mean binary cross-entropy, then the earlier point.  A label's probability is the
sigmoid of its score; a label is predicted when it reaches one threshold, chosen on the
validation documents from :data:`~gfbgcn.text.corpus.labels.THRESHOLD_GRID` by micro F1 (as the
graph model's, :func:`~gfbgcn.text.corpus.labels.choose_threshold`), with the model fitted
without them.  The chosen point is then refitted on the whole training split before the test
documents are scored, and the metrics are the graph model's multi-label ones
(:func:`~gfbgcn.text.corpus.labels.multilabel_metrics`: micro/macro F1, subset accuracy, ...).

A label present in every (or no) fitting document gets zero coefficients and the intercept
``+-``:data:`~gfbgcn.text.linear.grid.ABSENT` (always / never predicted).
``class_weight="balanced"`` balances each label's positive and negative documents.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.special import expit

from gfbgcn.core.metrics import mean_log_loss
from gfbgcn.text.corpus.labels import choose_threshold, multilabel_metrics
from gfbgcn.text.linear.baseline import (
    BaselineResult,
    LinearTextModel,
    best_on_validation,
    corpus_probabilities,
    graph_split,
    needs_hashing,
)
from gfbgcn.text.linear.grid import ABSENT, GridPoint
from gfbgcn.text.linear.ngrams import NgramFeatures


def multilabel_grid(hashed: bool) -> list[GridPoint]:
    """The per-label classifiers tried on validation: logistic regression over ``C`` (at
    scale: SGD with the logistic loss over ``alpha``)."""
    if hashed:
        return [GridPoint("sgd-log", "alpha", a) for a in (1e-5, 1e-4)]
    return [GridPoint("lr", "C", c) for c in (1.0, 10.0, 100.0)]


def fit_labels(x: sp.csr_matrix, y: np.ndarray, point: GridPoint, seed: int,
               class_weight: str | None, sample_weight: np.ndarray | None = None
               ) -> tuple[np.ndarray, np.ndarray]:
    """``(coef [L, V], intercept [L])`` of one binary classifier per column of ``y``; the
    probability of label ``l`` is ``sigmoid(x @ coef[l] + intercept[l])``.

    Args:
        x: ``[n, V]`` TF-IDF rows of the fitting documents.
        y: ``[n, L]`` 0/1 labels.
        point: the kind (``lr`` or ``sgd-log``) and its regularisation.
        seed: ``random_state`` of the solvers.
        class_weight: None or ``"balanced"`` (per label: positives against negatives).
        sample_weight: ``[n]`` each document's weight, or None.
    """
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import LogisticRegression, SGDClassifier

    y = np.asarray(y) > 0
    coef = np.zeros((y.shape[1], x.shape[1]))
    intercept = np.zeros(y.shape[1])
    for label in range(y.shape[1]):
        target = y[:, label]
        if target.all() or not target.any():  # nothing to separate: always or never
            intercept[label] = -ABSENT if target.all() else ABSENT
            continue
        if point.kind == "lr":
            clf: Any = LogisticRegression(C=point.value, solver="liblinear", random_state=seed,
                                          class_weight=class_weight)
        elif point.kind == "sgd-log":
            clf = SGDClassifier(loss="log_loss", alpha=point.value, random_state=seed,
                                class_weight=class_weight)
        else:
            raise ValueError(f"unknown multi-label linear kind {point.kind!r}")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            clf.fit(x, target, sample_weight=sample_weight)
        coef[label], intercept[label] = clf.coef_[0], float(clf.intercept_[0])
    return coef, intercept


def _bce(y: np.ndarray, probs: np.ndarray) -> float:
    """Mean binary cross-entropy over documents and labels."""
    flat = np.stack([1.0 - probs.ravel(), probs.ravel()], axis=1)
    return mean_log_loss((np.asarray(y).ravel() > 0).astype(np.int64), flat)


def _choose(x_train: sp.csr_matrix, y_train: np.ndarray, x_val: sp.csr_matrix,
            y_val: np.ndarray, points: list[GridPoint], seed: int, class_weight: str | None,
            sample_weight: np.ndarray | None = None
            ) -> tuple[GridPoint, float, np.ndarray, list[dict[str, Any]]]:
    """``(best point, its threshold, its validation probabilities, one row per point)``: each
    point fitted on the training rows and scored on the validation rows (see the module
    docstring; without validation documents the first point and threshold 0.5)."""
    def evaluate(point: GridPoint) -> tuple[float, float, dict, Any]:
        coef, intercept = fit_labels(x_train, y_train, point, seed, class_weight,
                                     sample_weight)
        probs = expit(np.asarray(x_val @ coef.T) + intercept[None, :])
        threshold, f1 = choose_threshold(y_val, probs) if len(y_val) else (0.5, 0.0)
        loss = _bce(y_val, probs) if len(y_val) else 0.0
        return f1, loss, {"val_micro_f1": f1, "val_log_loss": loss, "threshold": threshold}, \
            (threshold, probs)

    point, (threshold, probs), rows = best_on_validation(points, evaluate)
    return point, threshold, probs, rows


def fit_multilabel_baseline(texts: Sequence[str], targets: np.ndarray,
                            label_names: Sequence[str], train_idx: np.ndarray,
                            val_idx: np.ndarray, test_idx: np.ndarray,
                            tokenizer_name: str = "unicode", seed: int = 0, *,
                            class_weight: str | None = None, hashed: bool | None = None,
                            sample_weight: np.ndarray | None = None) -> BaselineResult:
    """Choose the per-label classifier and the threshold on ``val_idx`` (fitted on
    ``train_idx``), refit on both, and evaluate on ``test_idx``.

    Returns a :class:`~gfbgcn.text.linear.baseline.BaselineResult` whose ``test``/``val``
    hold the multi-label metrics and ``threshold``, ``probabilities`` ``[num_docs, L]`` the
    refitted model's label probabilities (validation documents: ``val_probabilities``, of the
    model fitted without them) and ``model`` a multi-label
    :class:`~gfbgcn.text.linear.baseline.LinearTextModel`.

    Args:
        texts: every document of the corpus.
        targets: ``[num_docs, L]`` 0/1 labels (those of test documents are read only to score).
        label_names: the labels, in column order.
        train_idx, val_idx, test_idx: the graph model's document splits.
        tokenizer_name: the graph's tokenizer, recorded with the model.
        seed: ``random_state`` of the solvers.
        class_weight: ``"balanced"``: each label's positives and negatives weigh the same.
        hashed: the scale mode; None: as the single-label baseline decides it.
        sample_weight: ``[num_docs]`` each document's weight in every fit, or None (the
            choice on validation is not weighted).
    """
    start = time.perf_counter()
    texts, y = list(texts), np.asarray(targets)
    train_idx, val_idx = np.asarray(train_idx), np.asarray(val_idx)
    fit_idx = np.concatenate([train_idx, val_idx])
    hashed = needs_hashing(texts, fit_idx) if hashed is None else hashed
    ngrams, fit_counts = NgramFeatures.fit([texts[i] for i in fit_idx], hashed)
    x_fit = ngrams.transform_counts(fit_counts)
    del fit_counts
    sw = None if sample_weight is None else np.asarray(sample_weight)[fit_idx]
    point, threshold, val_probs, rows = _choose(
        x_fit[:len(train_idx)], y[train_idx], x_fit[len(train_idx):], y[val_idx],
        multilabel_grid(hashed), seed, class_weight, None if sw is None else sw[:len(train_idx)])
    coef, intercept = fit_labels(x_fit, y[fit_idx], point, seed, class_weight, sw)
    model = LinearTextModel(
        ngrams=ngrams, coef=coef, intercept=intercept, label_names=list(label_names),
        tokenizer_name=tokenizer_name, C=float(point.value), kind=point.kind,
        params=point.params, multi_label=True)
    probs = corpus_probabilities(model, texts, fit_idx, x_fit)
    test = multilabel_metrics(y[test_idx], probs[test_idx] >= threshold) \
        if len(test_idx) else None
    val = multilabel_metrics(y[val_idx], val_probs >= threshold)
    val["threshold"] = threshold
    if test is not None:
        test["threshold"] = threshold
    return BaselineResult(model=model, test=test, val=val, probabilities=probs,
                          seconds=time.perf_counter() - start, val_probabilities=val_probs,
                          val_idx=val_idx, grid=rows, class_weight=class_weight,
                          threshold=threshold)


def multilabel_baseline_for_graph(corpus, graph, targets: np.ndarray,
                                  label_names: Sequence[str], val_ratio: float, seed: int,
                                  class_weight: str | None = None,
                                  sample_weight: np.ndarray | None = None) -> BaselineResult:
    """The multi-label baseline on the same train/validation/test documents as a graph model
    trained on ``graph`` with ``val_ratio`` and ``seed``.

    Args:
        corpus: the corpus the graph was built from (its ``texts``).
        graph: the :class:`TextGraph` (the split, the tokenizer name).
        targets, label_names: the run's ``[num_docs, L]`` 0/1 labels and their names.
        val_ratio, seed: the graph model's validation split and seed.
        class_weight, sample_weight: see :func:`fit_multilabel_baseline`.
    """
    idx = graph_split(graph, val_ratio, seed)
    return fit_multilabel_baseline(corpus.texts, targets, label_names, idx["train"],
                                   idx["val"], idx["test"], graph.tokenizer, seed,
                                   class_weight=class_weight, sample_weight=sample_weight)

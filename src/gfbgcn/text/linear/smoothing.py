"""``--auto``'s linear answer smoothed over the documents' graph, when cross-validation on the
training documents says it helps beyond noise.

The linear model's calibrated probabilities seed label spreading over the documents'
``k``-nearest-neighbour graph (:mod:`gfbgcn.text.linear.doc_graph`): every document not of the
training split moves ``alpha`` of the way towards the answers of the documents most like it,
the training documents held at their labels.  The graph holds every document of the corpus,
test documents included (their texts, never their labels), as the Text GCN graph does.

**The choice is cross-fitted** (:func:`cross_fit`, :func:`choose_smoothing`), not made on the
validation split: the training split (the search's training and validation documents) is cut
into :data:`FOLDS` stratified folds; for each, the linear model's chosen classifier (its kind,
regularisation and temperature, as chosen on validation) is fitted on the other folds and its
probabilities, spread with the other folds' labels known, score the held-out fold.  (The
search scores its linear models on the same folds, unspread, to choose the one it smooths:
:mod:`gfbgcn.text.search.auto`.)  Every
training document is thus scored once, by a model that did not see its label, so a
configuration is judged on all of them rather than on the validation split's few hundred.
Over the graphs the model's own features allow (:data:`~gfbgcn.text.linear.doc_graph.GRAPHS`:
its word n-grams, its encoder embeddings, both) and the weights of :data:`ALPHAS`, the one
with the most held-out documents right is taken (ties: the earlier graph, the smaller
``alpha``) -- and then only if it beats the unsmoothed model by more than noise: with ``b``
documents it gets right that the model gets wrong and ``w`` the reverse,

    b - w > Z * sqrt(b + w)

(a one-sided sign test on the discordant documents at about 5 %).  Otherwise the linear model
answers as it is.

Not tried (:func:`why_not`): multi-label corpora, more than :data:`MAX_DOCUMENTS` documents
(the exact neighbour search is quadratic in them), fewer than :data:`MIN_DOCUMENTS` training
documents; nor, for want of a graph, a model of hashed n-grams (no word vocabulary) without an
encoder.
"""

from __future__ import annotations

import math
import sys
import time
import warnings
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import scipy.sparse as sp
import torch
from scipy.special import softmax

from gfbgcn.core.metrics import classification_metrics, mean_log_loss, test_metrics
from gfbgcn.core.processes import forked_map
from gfbgcn.text.corpus.weights import ClassWeight, folded_weights
from gfbgcn.text.linear.baseline import BaselineResult
from gfbgcn.text.linear.doc_graph import DocumentVectors, Smoothing, knn_adjacency, spread
from gfbgcn.text.linear.grid import GridPoint, fit_point, linear_scores

#: Neighbours of each document in the graph.
NEIGHBOURS = 10
#: The neighbours' shares tried (0, the model alone, is the reference every one must beat).
ALPHAS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7)
#: Folds of the cross-fitted choice.
FOLDS = 5
#: Standard errors of the sign test a configuration's gain must exceed (one-sided, ~5 %).
Z = 1.645
#: Documents above which smoothing is not tried (the neighbour search is quadratic).
MAX_DOCUMENTS = 50_000
#: Training documents below which smoothing is not tried (folds of a handful of documents).
MIN_DOCUMENTS = 50


@dataclass
class SmoothingChoice:
    """What the cross-fitted choice found: ``graph``/``alpha`` of the best configuration
    (None: none tried), held-out accuracy of the model alone (``base_accuracy``) and of that
    configuration (``accuracy``), ``better``/``worse`` its discordant documents, ``kept``
    whether it passed the test, ``grid`` one row per configuration, ``reason`` why none was
    tried."""

    graph: str | None = None
    alpha: float = 0.0
    base_accuracy: float = float("nan")
    accuracy: float = float("nan")
    better: int = 0
    worse: int = 0
    kept: bool = False
    seconds: float = 0.0
    grid: list[dict[str, Any]] = field(default_factory=list)
    reason: str = ""

    def summary(self) -> dict[str, Any]:
        """The choice as ``metrics.json`` and the results records keep it."""
        return {"graph": self.graph, "alpha": self.alpha, "kept": self.kept,
                "cv_accuracy": self.accuracy, "cv_base_accuracy": self.base_accuracy,
                "better": self.better, "worse": self.worse, "folds": FOLDS,
                "neighbours": NEIGHBOURS, "z": Z, "seconds": self.seconds,
                "grid": self.grid, **({"reason": self.reason} if self.reason else {})}

    def sentence(self) -> str:
        """One line for the search's log."""
        if self.graph is None:
            return f"not tried: {self.reason}"
        verdict = "kept" if self.kept else "not kept (not beyond noise)"
        return (f"best over {self.graph} (alpha={self.alpha:g}): cross-validated accuracy "
                f"{self.accuracy:.4f} against {self.base_accuracy:.4f} unsmoothed "
                f"({self.better} documents more right, {self.worse} fewer), {verdict}")


def _fold_probabilities(shared: tuple, known: np.ndarray) -> np.ndarray:
    """``[N, C]`` probabilities of every document by the chosen classifier fitted on the
    documents ``known`` (one fold's fit, in a worker of :func:`fold_probabilities`)."""
    x, y, num_classes, point, seed, class_weight, weights, temperature = shared
    coef, intercept = fit_point(x[known], y[known], num_classes, point, seed, class_weight,
                                None if weights is None else weights[known])
    return softmax(linear_scores(x, coef, intercept) / temperature, axis=1)


def folds_of(fit_idx: np.ndarray, y: np.ndarray, seed: int) -> list[tuple[np.ndarray, ...]]:
    """``[(known, held out)]``: :data:`FOLDS` stratified folds of the documents ``fit_idx``
    (corpus indices; a class with fewer documents than folds is spread as it can be)."""
    from sklearn.model_selection import StratifiedKFold

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "the least populated class has ..."
        splits = StratifiedKFold(FOLDS, shuffle=True, random_state=seed).split(
            fit_idx, y[fit_idx])
        return [(fit_idx[a], fit_idx[b]) for a, b in splits]


def fold_probabilities(x: sp.csr_matrix, y: np.ndarray, folds: list[tuple[np.ndarray, ...]],
                       point: GridPoint, num_classes: int, seed: int, temperature: float,
                       class_weight: str | None, weights: np.ndarray | None,
                       threads: int | None = None) -> list[np.ndarray]:
    """Each fold's ``[N, C]`` probabilities of every document (:func:`_fold_probabilities`),
    the folds fitted in forked processes over ``threads`` cores (default: torch's thread
    count) where there are two or more (liblinear's generator is one per process, see
    :func:`~gfbgcn.text.linear.grid.evaluate_grid`)."""
    shared = (x, y, num_classes, point, seed, class_weight, weights, temperature)
    threads = torch.get_num_threads() if threads is None else threads
    if threads < 2 or sys.platform == "win32":
        return [_fold_probabilities(shared, known) for known, _ in folds]
    return forked_map(_fold_probabilities, shared, [(known,) for known, _ in folds],
                      min(threads, len(folds)))


def held_out_correct(p: sp.csr_matrix | None, probs: list[np.ndarray],
                     folds: list[tuple[np.ndarray, ...]], y: np.ndarray, alpha: float
                     ) -> tuple[np.ndarray, np.ndarray]:
    """``(held-out documents, whether each is right)`` over all folds: each fold's
    probabilities spread over ``p`` with the fold's known labels (``p`` None or ``alpha``
    0: the model alone)."""
    num_classes = probs[0].shape[1]
    docs, right = [], []
    for (known, held), q in zip(folds, probs):
        if p is not None and alpha > 0:
            q = spread(p, q, known, np.eye(num_classes)[y[known]], alpha)
        docs.append(held)
        right.append(q[held].argmax(axis=1) == y[held])
    return np.concatenate(docs), np.concatenate(right)


def choose_smoothing(graphs: dict[str, sp.csr_matrix], probs: list[np.ndarray],
                     folds: list[tuple[np.ndarray, ...]], y: np.ndarray) -> SmoothingChoice:
    """The configuration of the most held-out documents right over ``graphs`` (name: its
    ``P``) and :data:`ALPHAS`, and whether it passes the module docstring's test against the
    model alone (``probs``: each fold's probabilities, :func:`fold_probabilities`)."""
    _, base = held_out_correct(None, probs, folds, y, 0.0)
    best: tuple[int, str, float, np.ndarray] | None = None
    grid = []
    for name, p in graphs.items():
        for alpha in ALPHAS:
            _, right = held_out_correct(p, probs, folds, y, alpha)
            grid.append({"graph": name, "alpha": alpha, "cv_accuracy": float(right.mean())})
            if best is None or int(right.sum()) > best[0]:
                best = (int(right.sum()), name, alpha, right)
    assert best is not None
    _, name, alpha, right = best
    better, worse = int((right & ~base).sum()), int((~right & base).sum())
    return SmoothingChoice(graph=name, alpha=alpha, base_accuracy=float(base.mean()),
                           accuracy=float(right.mean()), better=better, worse=worse,
                           kept=better - worse > Z * math.sqrt(better + worse), grid=grid)


@dataclass
class CrossFit:
    """A linear model's chosen classifier (kind, regularisation, temperature) fitted fold by
    fold on the training documents: ``folds`` ``[(known, held out)]`` (corpus indices),
    ``probs`` each fold's ``[N, C]`` probabilities of every document (:func:`cross_fit`)."""

    folds: list[tuple[np.ndarray, ...]]
    probs: list[np.ndarray]
    seconds: float = 0.0

    def held_out(self) -> tuple[np.ndarray, np.ndarray]:
        """``(documents, [n, C] probabilities)``: every training document's probabilities
        by the fold that did not see its label."""
        docs = np.concatenate([held for _, held in self.folds])
        return docs, np.concatenate([q[held] for (_, held), q in zip(self.folds, self.probs)])

    def scores(self, labels: np.ndarray) -> dict[str, float]:
        """Held-out accuracy and mean log-loss over every training document."""
        docs, p = self.held_out()
        y = np.asarray(labels)[docs]
        return {"cv_accuracy": float((p.argmax(1) == y).mean()),
                "cv_log_loss": mean_log_loss(y, p), "seconds": self.seconds}


def why_not(result: BaselineResult, num_docs: int, fit_docs: int) -> str:
    """Why ``result`` is not cross-fitted, so neither smoothed ("" when it is)."""
    if result.threshold is not None:
        return "a multi-label model"
    if num_docs > MAX_DOCUMENTS:
        return f"{num_docs:,} documents, above {MAX_DOCUMENTS:,}"
    if fit_docs < MIN_DOCUMENTS:
        return f"{fit_docs} training documents, below {MIN_DOCUMENTS}"
    return ""


def cross_fit(result: BaselineResult, x: sp.csr_matrix, labels: np.ndarray,
              split: dict[str, np.ndarray], seed: int, *, class_weight: ClassWeight = None,
              sample_weight: np.ndarray | None = None, threads: int | None = None) -> CrossFit:
    """``result``'s classifier fitted on each fold's known documents (:func:`folds_of` of the
    ``train`` and ``val`` documents of ``split``, drawn with ``seed``).

    Args:
        result: the fitted single-label linear model (see :func:`why_not`).
        x: ``[num_docs, V]`` every document's feature rows as the model computes them.
        labels: ``[num_docs]`` class indices (test documents' are never read).
        split: the ``train``/``val``/``test`` document indices.
        seed, class_weight, sample_weight: as the model's fit took them.
        threads: cores for the folds' fits (:func:`fold_probabilities`).
    """
    start, labels = time.perf_counter(), np.asarray(labels)
    model = result.model
    names = model.label_names
    named, weights = folded_weights(labels, names, class_weight, sample_weight)
    folds = folds_of(np.concatenate([split["train"], split["val"]]), labels, seed)
    probs = fold_probabilities(x, labels, folds, model.grid_point, len(names), seed,
                               model.temperature, named, weights, threads)
    return CrossFit(folds, probs, time.perf_counter() - start)


def smooth_linear(result: BaselineResult, x: sp.csr_matrix, labels: np.ndarray,
                  split: dict[str, np.ndarray], fitted: CrossFit
                  ) -> tuple[SmoothingChoice, BaselineResult | None]:
    """Choose (module docstring) whether to smooth the fitted single-label linear model
    ``result``, whose folds ``fitted`` holds (:func:`cross_fit`): ``(the choice, the
    smoothed model where it is kept, else None)``.  The smoothed model is a new
    :class:`~gfbgcn.text.linear.baseline.BaselineResult` (``result`` is left as it is): its
    probabilities, test and validation metrics are the smoothed ones, its validation
    documents scored by their held-out fold's smoothed probabilities (what every choice on
    validation downstream needs), and its model keeps the
    :class:`~gfbgcn.text.linear.doc_graph.Smoothing` that answers for new documents.

    Args:
        result: the fitted linear model (refitted on the training and validation documents).
        x: ``[num_docs, V]`` every document's feature rows as the model computes them.
        labels: ``[num_docs]`` class indices (test documents' are read only to score).
        split: the ``train``/``val``/``test`` document indices.
        fitted: its folds.
    """
    start, labels = time.perf_counter(), np.asarray(labels)
    model = result.model
    if not model.document_graphs:
        return SmoothingChoice(reason="no word vocabulary (hashed n-grams) and no encoder"), \
            None
    vectors = model.document_vectors(x)
    graphs = {g: knn_adjacency(vectors, g, NEIGHBOURS) for g in model.document_graphs}
    choice = choose_smoothing(graphs, fitted.probs, fitted.folds, labels)
    smoothed = None
    if choice.kept:
        assert choice.graph is not None
        fit_idx = np.concatenate([split["train"], split["val"]])
        smoothed = _smoothed(result, choice, graphs[choice.graph], fitted, labels, split,
                             vectors, fit_idx)
    choice.seconds = time.perf_counter() - start + fitted.seconds
    if smoothed is not None:
        smoothed.seconds = result.seconds + choice.seconds
    return choice, smoothed


def _smoothed(result: BaselineResult, choice: SmoothingChoice, p: sp.csr_matrix,
              fitted: CrossFit, labels: np.ndarray, split: dict[str, np.ndarray],
              vectors: DocumentVectors, fit_idx: np.ndarray) -> BaselineResult:
    """A copy of ``result`` smoothed with the kept ``choice`` over its graph ``p``."""
    assert choice.graph is not None
    c = len(result.model.label_names)
    answers = spread(p, result.probabilities, fit_idx, np.eye(c)[labels[fit_idx]],
                     choice.alpha)
    held_out = np.empty_like(answers)
    for (known, held), q in zip(fitted.folds, fitted.probs):
        held_out[held] = spread(p, q, known, np.eye(c)[labels[known]], choice.alpha)[held]
    val_idx = split["val"] if result.val_idx is None else result.val_idx
    test = split["test"]
    model = replace(result.model, smoothing=Smoothing(choice.graph, choice.alpha, NEIGHBOURS,
                                                      vectors, answers))
    return replace(result, model=model, probabilities=answers,
                   val_probabilities=held_out[val_idx], val_idx=val_idx,
                   test=test_metrics(labels[test], answers[test].argmax(1), c),
                   val=classification_metrics(labels[val_idx], held_out[val_idx].argmax(1), c),
                   fit_counts=None, features=None)

"""The classifiers of the linear baseline (:mod:`gfbgcn.text.linear.baseline`): the grid of
kinds and regularisation strengths tried on validation, one fit as ``(coef, intercept)`` of a
linear score, and the calibration temperature.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
import torch

from gfbgcn.core.processes import forked_map

#: At scale, SGD (one-vs-rest, cost proportional to the classes) only up to this many classes.
SGD_MAX_CLASSES = 20
#: Temperatures tried on validation (log-spaced), see :func:`choose_temperature`.
TEMPERATURES = tuple(float(t) for t in np.geomspace(1e-3, 1e3, 61))
#: Intercept of classes absent from the training documents: never predicted.
ABSENT = -30.0
#: Kinds fitted by liblinear, whose random generator is one per process (``srand``): their fits
#: run in forked processes, never two at once in one (see :func:`evaluate_grid`).
LIBLINEAR_KINDS = frozenset({"svm", "lr"})


@dataclass(frozen=True)
class GridPoint:
    """One classifier of a grid: its kind, its regularisation, and (for features with an
    encoder block, :mod:`gfbgcn.text.linear.encoder`) the weight of that block (0: none)."""

    kind: str  # "lr", "svm", "sgd", "cnb"
    param: str  # "C" or "alpha"
    value: float
    scale: float = 0.0

    @property
    def params(self) -> dict[str, float]:
        return {self.param: self.value, **({"scale": self.scale} if self.scale else {})}


#: Regularisation tried on validation, per kind (vocabulary mode): those of the simple baselines
#: (b), (c) and (d) of ``benchmarks/vs_linear.py``, fixed there before any result.  Until
#: 2026-11-26 the SVM stopped at C = 1 and SGD at alpha = 1e-4: in 16 of the 24 searches of
#: ``docs/results/vs-linear.md`` (8 corpora, 3 seeds) the chosen point was that edge, and
#: there the benchmark's validation chose C = 3 in 8 and alpha = 3e-4 in 11 of its 24 splits.
SVM_C = (0.1, 0.3, 1.0, 3.0)
SGD_ALPHA = (1e-5, 3e-5, 1e-4, 3e-4)
CNB_ALPHA = (0.1, 0.3, 1.0)


def grid(hashed: bool, num_classes: int = 2) -> list[GridPoint]:
    """The kinds and regularisation strengths tried on validation (at scale: complement naive
    Bayes, and SGD up to :data:`SGD_MAX_CLASSES` classes).

    Args:
        hashed: the scale mode (hashed features).
        num_classes: the classes of the corpus.
    """
    cnb = [GridPoint("cnb", "alpha", a) for a in CNB_ALPHA]
    if hashed:
        sgd = [GridPoint("sgd", "alpha", a) for a in (1e-5, 1e-4)]
        return (sgd if num_classes <= SGD_MAX_CLASSES else []) + cnb
    # no logistic regression (kind "lr", still fitted by :func:`fit_point` when asked): on R8
    # its three points took 37 of the grid's 50 s (liblinear one-vs-rest on 280k n-gram
    # columns) and it won 1 of the 18 searches of docs/results/vs-linear.md, where the SVM and
    # SGD with the same features came within seed noise of it
    return [GridPoint("svm", "C", c) for c in SVM_C] + \
        [GridPoint("sgd", "alpha", a) for a in SGD_ALPHA] + cnb


def _balanced(y: np.ndarray) -> np.ndarray:
    """scikit-learn's "balanced" sample weights ``n / (k * count[y])``."""
    classes, inverse, counts = np.unique(y, return_inverse=True, return_counts=True)
    return len(y) / (len(classes) * counts[inverse])


def _estimator(point: GridPoint, seed: int, class_weight: str | None, multiclass: bool):
    """The unfitted scikit-learn classifier of ``point`` (complement NB takes ``class_weight``
    as sample weights in :func:`fit_point`)."""
    from sklearn.linear_model import LogisticRegression, SGDClassifier
    from sklearn.naive_bayes import ComplementNB
    from sklearn.svm import LinearSVC

    if point.kind == "lr":
        # liblinear (one-vs-rest): lbfgs on 10^5 n-gram columns took 5 s a fit on a loaded
        # 2-core machine against 0.1 s; its scores are calibrated by the temperature
        clf = LogisticRegression(C=point.value, solver="liblinear", random_state=seed,
                                 class_weight=class_weight)
        if multiclass:  # liblinear is binary in scikit-learn >= 1.8
            from sklearn.multiclass import OneVsRestClassifier

            # (with "balanced", each binary problem balances its class against the rest)
            return OneVsRestClassifier(clf)
        return clf
    if point.kind == "svm":
        return LinearSVC(C=point.value, random_state=seed, class_weight=class_weight)
    if point.kind == "sgd":
        return SGDClassifier(loss="modified_huber", alpha=point.value, random_state=seed,
                             class_weight=class_weight)
    if point.kind == "cnb":
        return ComplementNB(alpha=point.value)
    raise ValueError(f"unknown linear kind {point.kind!r}")


def fit_point(x: sp.csr_matrix, y: np.ndarray, num_classes: int, point: GridPoint, seed: int,
              class_weight: str | None, sample_weight: np.ndarray | None = None
              ) -> tuple[np.ndarray, np.ndarray]:
    """``(coef [C, V], intercept [C])`` of one grid point's classifier; its scores are
    ``x @ coef.T + intercept`` (before any temperature).  Classes absent from ``y`` get zero
    coefficients and the intercept :data:`ABSENT`.

    Args:
        x, y: the fitting documents' TF-IDF rows and classes.
        num_classes: the classes of the corpus.
        point: the kind and its regularisation.
        seed: ``random_state`` of the stochastic solvers.
        class_weight: None or ``"balanced"`` (the estimators' own class weighting; a dict of
            weights comes folded into ``sample_weight``,
            :func:`~gfbgcn.text.corpus.weights.folded_weights`).
        sample_weight: ``[n]`` each fitting document's weight, or None.
    """
    from sklearn.exceptions import ConvergenceWarning

    classes = np.unique(y)
    coef = np.zeros((num_classes, x.shape[1]))
    intercept = np.full(num_classes, ABSENT)
    if len(classes) == 1:
        intercept[classes[0]] = 0.0
        return coef, intercept
    weights = sample_weight
    if point.kind == "cnb" and class_weight == "balanced":  # as sample weights (below)
        weights = _balanced(y) * (1.0 if sample_weight is None else sample_weight)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        if point.kind == "lr" and len(classes) > 2:  # one binary model per class
            w, b = _one_vs_rest(x, y, classes, point, seed, class_weight, weights)
        else:
            clf = _estimator(point, seed, class_weight, False)
            clf.fit(x, y, **({} if weights is None else {"sample_weight": weights}))
            if point.kind == "cnb":
                # ComplementNB predicts argmax of x @ feature_log_prob_.T (no prior with > 1
                # class)
                w, b = clf.feature_log_prob_, np.zeros(len(classes))
            else:
                w, b = clf.coef_, np.asarray(clf.intercept_, dtype=np.float64)
    if w.shape[0] == 1:  # binary: one row; softmax of (-s/2, s/2) is sigmoid(s)
        w, b = np.vstack([-w / 2, w / 2]), np.array([-b[0] / 2, b[0] / 2])
    coef[classes], intercept[classes] = w, b
    return coef, intercept


def _one_vs_rest(x: sp.csr_matrix, y: np.ndarray, classes: np.ndarray, point: GridPoint,
                 seed: int, class_weight: str | None, sample_weight: np.ndarray | None
                 ) -> tuple[np.ndarray, np.ndarray]:
    """``(coef [k, V], intercept [k])`` of one binary logistic regression per class of
    ``classes`` (class against the rest), as scikit-learn's ``OneVsRestClassifier`` fits them
    (which passes no ``sample_weight`` unless metadata routing is on, hence the loop where
    there are sample weights)."""
    if sample_weight is None:
        ovr = _estimator(point, seed, class_weight, True).fit(x, y)
        fitted = ovr.estimators_
    else:
        fitted = [_estimator(point, seed, class_weight, False).fit(
            x, (y == c).astype(np.int64), sample_weight=sample_weight) for c in classes]
    w = np.vstack([e.coef_ for e in fitted])
    b = np.concatenate([np.ravel(e.intercept_) for e in fitted]).astype(np.float64)
    return w, b


def choose_temperature(scores: np.ndarray, y: np.ndarray) -> float:
    """The temperature of :data:`TEMPERATURES` with the lowest cross-entropy of
    ``softmax(scores / T)`` against Platt's smoothed targets (1.0 without documents).

    Platt's targets -- ``(n_c + 1) / (n_c + 2)`` for the true class ``c`` of a document, the
    rest shared by the other classes, ``n_c`` the validation documents of class ``c`` -- rather
    than one-hot ones, because a validation split that the scores separate perfectly (common on
    small or easy corpora) would otherwise drive ``T`` to its smallest value and make every
    probability 0 or 1, which the combined predictor would then trust blindly.

    Args:
        scores: ``[n, C]`` decision scores of the validation documents.
        y: ``[n]`` their classes.
    """
    if len(y) == 0:
        return 1.0
    n, c = scores.shape
    counts = np.bincount(y, minlength=c)
    hit = (counts[y] + 1.0) / (counts[y] + 2.0)
    targets = np.repeat(((1.0 - hit) / max(c - 1, 1))[:, None], c, axis=1)
    targets[np.arange(n), y] = hit
    losses = []
    for t in TEMPERATURES:
        z = scores / t
        log_p = z - z.max(axis=1, keepdims=True)
        log_p -= np.log(np.exp(log_p).sum(axis=1, keepdims=True))
        losses.append(-float((targets * log_p).sum(axis=1).mean()))
    return TEMPERATURES[int(np.argmin(losses))]


def linear_scores(x: sp.csr_matrix, coef: np.ndarray, intercept: np.ndarray) -> np.ndarray:
    """``[n, C]`` scores ``x @ coef.T + intercept`` of TF-IDF rows ``x`` (before temperature).

    Args:
        x: ``[n, V]`` TF-IDF rows.
        coef, intercept: ``[C, V]`` and ``[C]`` from :func:`fit_point`.
    """
    return np.asarray(x @ coef.T) + intercept[None, :]


def evaluate_grid(points: list[GridPoint], evaluate: Callable[[GridPoint], Any],
                  threads: int | None = None) -> list[Any]:
    """``[evaluate(p) for p in points]``, over ``threads`` cores (default: torch's thread
    count, which ``--threads`` sets) when that is 2 or more.

    liblinear seeds one process-wide generator at the start of every fit (``srand``), so no two
    liblinear fits may run in one process at once (two SVM fits in two threads gave other
    weights than in one), while SGD and naive Bayes carry their own state.  So the liblinear
    fits run in ``threads`` forked processes, the costliest (largest ``C``) first, while this
    process fits the other kinds: each result equals the serial one.  Where there is no fork
    (Windows) the liblinear fits run in one thread beside the others (scikit-learn's solvers
    release the GIL).  On R8 the SVM fits were 12 s of one chain beside 5 s of SGD and naive
    Bayes, so one thread for them all left a core idle (``docs/benchmarks.md``).
    """
    threads = torch.get_num_threads() if threads is None else threads
    lib = [i for i, p in enumerate(points) if p.kind in LIBLINEAR_KINDS]
    other = [i for i, p in enumerate(points) if p.kind not in LIBLINEAR_KINDS]
    if threads < 2 or len(points) < 2 or not lib:
        return [evaluate(p) for p in points]
    results: list[Any] = [None] * len(points)

    def run(chain: list[int]) -> None:
        for i in chain:
            results[i] = evaluate(points[i])

    # warnings filters are process-wide: the fits' own catch_warnings blocks, entered and left
    # by two threads, may restore each other's lists; this block restores the caller's at the end
    with warnings.catch_warnings():
        if sys.platform != "win32":
            lib.sort(key=lambda i: -points[i].value)  # larger C: more liblinear iterations
            done = forked_map(_evaluate_point, (evaluate, points), [(i,) for i in lib],
                              min(threads, len(lib)), meanwhile=lambda: run(other))
            for i, result in zip(lib, done):
                results[i] = result
            return results
        with ThreadPoolExecutor(2) as pool:
            for future in [pool.submit(run, chain) for chain in (lib, other) if chain]:
                future.result()
    return results


def _evaluate_point(shared: tuple[Callable[[GridPoint], Any], list[GridPoint]], i: int) -> Any:
    """Point ``i`` evaluated in a worker of :func:`evaluate_grid` (``shared`` inherited)."""
    evaluate, points = shared
    return evaluate(points[i])


def best_on_validation(points: list[GridPoint],
                       evaluate: Callable[[GridPoint], tuple[float, float, dict, Any]],
                       threads: int | None = None
                       ) -> tuple[GridPoint, Any, list[dict[str, Any]]]:
    """The grid point with the highest validation score, ties broken by the lower validation
    loss, then the earlier point.

    ``evaluate(point)`` fits the point on the training rows and returns ``(score, loss, row,
    kept)``: ``row`` its grid-table entries, ``kept`` what the caller needs of the best point.
    Returns ``(best point, its kept, one row per point)`` (a row: kind, params, then ``row``).
    The points are evaluated by :func:`evaluate_grid` (``threads``: see there).
    """
    best: tuple | None = None
    rows = []
    for point, (score, loss, row, kept) in zip(points, evaluate_grid(points, evaluate, threads)):
        rows.append({"kind": point.kind, **point.params, **row})
        if best is None or (score, -loss) > best[0]:
            best = ((score, -loss), point, kept)
    assert best is not None
    return best[1], best[2], rows

"""The built-in linear baseline printed beside every own-corpus result, combined with the graph
model by :mod:`gfbgcn.text.predict.combined` and tried as a candidate by ``--auto``.

Features (:class:`NgramFeatures`): word 1-2-grams and ``char_wb`` 2-5-grams (character n-grams
inside word boundaries; they catch morphology, spelling variants and scripts written without
spaces), each block with sublinear TF ``1 + log(tf)`` times the smoothed IDF
``log((1 + n) / (1 + df)) + 1`` and rows L2-normalised, the two blocks side by side (as
scikit-learn's ``TfidfVectorizer(sublinear_tf=True)`` in a ``FeatureUnion``).  Vocabulary and IDF
come from the texts of the whole training split (validation documents included: their texts,
never their labels; test documents are not looked at).  The analysers are scikit-learn's
(lower-cased, default token pattern) rather than the graph's tokenizer, so the baseline is the
one a practitioner would write, whatever ``--tokenizer`` the graph uses.

At scale (more than :data:`HASH_ABOVE` training documents, or more than :data:`HASH_CHARS`
characters of training text) the vocabulary is not kept: word 1-2-grams are hashed into
:data:`HASH_FEATURES` columns (``HashingVectorizer``, no sign flipping) and the character block
is dropped, because on long documents it has thousands of non-zeros per document (20NG-sized
texts at 383k documents would hold about 10^9).  Memory is then the hashed counts plus a dense
``[classes, 2^18]`` coefficient matrix.

Classifier: one of a small grid (:func:`grid`: the values of ``benchmarks/vs_linear.py``'s simple
baselines) -- a linear SVM, SGD with the modified Huber loss, complement naive Bayes -- with its
regularisation (logistic regression, kind ``lr``, is left out for its cost); each is fitted
(over the cores: :func:`~gfbgcn.text.linear.grid.evaluate_grid`) on the graph model's
*training* documents and scored on its *validation* documents (accuracy, ties: lower log-loss,
then the earlier grid entry).  The chosen one is then fitted
again on the whole training split (training + validation documents) before the test documents
are scored, as a practitioner would.  At scale the grid holds only the kinds whose cost is about
one pass over the data: complement naive Bayes, and SGD where there are at most
:data:`SGD_MAX_CLASSES` classes (SGD is one-vs-rest: its cost grows with the classes).

Probabilities: ``softmax(scores / T)`` with one temperature ``T`` chosen on the validation
documents (cross-entropy against Platt's smoothed targets, :func:`choose_temperature`), from
the model fitted without them -- for every kind: the SVM's and complement naive Bayes' losses
give no probabilities, modified Huber's are poorly calibrated, and logistic regression is fitted
one-vs-rest (liblinear, see :func:`fit_point`), whose normalised sigmoids are not a softmax
either.  The temperature is folded into the stored coefficients, so every kind predicts
``softmax(x W^T + b)``.  The validation documents'
probabilities used for every choice downstream (the combination's weight, ``--auto``) are those
of the model fitted without them (:attr:`BaselineResult.val_probabilities`); the refitted model
gives the probabilities of every other document.

The fitted model is the n-gram vocabularies (or the hashing width), the IDF, a coefficient
matrix and an intercept: :meth:`LinearTextModel.to_tensors` / :meth:`from_tensors` store them as
safetensors + JSON, no pickle.  (Models saved before 2026-11-26 held a unigram TF-IDF +
logistic-regression baseline instead; they are refused on load with a line that says to train
again: :data:`OLD_FORMAT`.)
"""
from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.special import expit, softmax

from gfbgcn.core.metrics import classification_metrics, mean_log_loss
from gfbgcn.text.linear.grid import (  # noqa: F401  (the baseline's names, re-exported)
    ABSENT,
    SGD_MAX_CLASSES,
    TEMPERATURES,
    GridPoint,
    best_on_validation,
    choose_temperature,
    fit_point,
    grid,
    linear_scores,
)
from gfbgcn.text.linear.ngrams import (  # noqa: F401  (re-exported)
    CHAR_NGRAMS,
    HASH_ABOVE,
    HASH_CHARS,
    HASH_FEATURES,
    PARALLEL_ABOVE,
    WORD_NGRAMS,
    FittedCounts,
    NgramFeatures,
    hash_counts,
    needs_hashing,
    smoothed_idf,
    tfidf_features,
)

#: Why a linear model saved without n-gram features is refused (the unigram format of the
#: models saved before 2026-11-26).
OLD_FORMAT = ("a linear model of the unigram format saved before 2026-11-26, which this "
              "gfbgcn no longer reads: train the model again")


@dataclass
class LinearTextModel:
    """A fitted linear text classifier: everything :meth:`predict_proba` needs.

    ``coef``/``intercept`` already include the calibration temperature, so
    ``predict_proba(x) = softmax(features(x) @ coef.T + intercept)`` for every kind;
    ``multi_label``: one independent binary model per label (``label_names`` are the labels),
    ``sigmoid`` instead of the softmax (:mod:`gfbgcn.text.linear.multilabel`).
    ``tokenizer_name``: the graph's tokenizer beside which it was fitted (recorded only: the
    n-gram analysers are scikit-learn's).
    """

    ngrams: NgramFeatures = field(repr=False)
    coef: np.ndarray  # float64 [C, V] (binary problems: the two rows of +-w/2, see fit)
    intercept: np.ndarray  # float64 [C]
    label_names: list[str]
    tokenizer_name: str
    C: float
    kind: str
    params: dict[str, Any] = field(default_factory=dict)
    temperature: float = 1.0
    multi_label: bool = False

    @property
    def idf(self) -> np.ndarray:
        """``[V]`` float64: the IDF of the n-gram columns."""
        return self.ngrams.idf

    @property
    def description(self) -> str:
        """``svm C=0.3``: the kind and its chosen regularisation, for printing."""
        return " ".join([self.kind, *(f"{k}={v:g}" for k, v in self.params.items())])

    def features(self, texts: Sequence[str]) -> sp.csr_matrix:
        """``[n, V]`` TF-IDF rows of ``texts``."""
        return self.ngrams.transform(list(texts))

    def proba_of(self, x: sp.csr_matrix) -> np.ndarray:
        """Class (multi-label: label) probabilities of TF-IDF rows ``x``."""
        scores = np.asarray(x @ self.coef.T) + self.intercept[None, :]
        return expit(scores) if self.multi_label else softmax(scores, axis=1)

    def predict_proba(self, texts: Sequence[str] | str) -> np.ndarray:
        """``[n, C]`` class probabilities of ``texts``."""
        if isinstance(texts, str):
            texts = [texts]
        return self.proba_of(self.features(texts))

    def to_tensors(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """``(arrays, JSON metadata)`` for safetensors + JSON (no pickle)."""
        arrays = {"idf": self.idf, "coef": self.coef, "intercept": self.intercept}
        # "vocab" stays in the format, empty: the n-gram vocabularies are in "features"
        meta: dict[str, Any] = {"vocab": [], "label_names": self.label_names,
                                "tokenizer": self.tokenizer_name, "C": self.C,
                                "features": self.ngrams.meta(), "kind": self.kind,
                                "params": self.params, "temperature": self.temperature}
        if self.multi_label:
            meta["multi_label"] = True
        return arrays, meta

    @classmethod
    def from_tensors(cls, arrays: dict[str, np.ndarray], meta: dict[str, Any]
                     ) -> LinearTextModel:
        """The model of :meth:`to_tensors`' output; a ``ValueError`` (:data:`OLD_FORMAT`) for
        the unigram format of older models."""
        if meta.get("features") is None:
            raise ValueError(OLD_FORMAT)
        idf = np.asarray(arrays["idf"], np.float64)
        return cls(ngrams=NgramFeatures.from_meta(meta["features"], idf),
                   coef=np.asarray(arrays["coef"], np.float64),
                   intercept=np.asarray(arrays["intercept"], np.float64),
                   label_names=list(meta["label_names"]), tokenizer_name=meta["tokenizer"],
                   C=float(meta["C"]), kind=str(meta["kind"]), params=dict(meta["params"]),
                   temperature=float(meta["temperature"]),
                   multi_label=bool(meta.get("multi_label", False)))


@dataclass
class BaselineResult:
    """A fitted baseline and what it scored.

    ``probabilities``: ``[num_docs, C]`` of the refitted model for every document of the
    corpus; ``val_probabilities``: ``[len(val_idx), C]`` of the model fitted *without* the
    validation documents -- what every choice on validation must use.  ``grid``: one entry per
    grid point (kind, params, validation accuracy and log-loss); ``class_weight``: how its
    fits weighed the classes (None or ``"balanced"``, :func:`fit_baseline`); ``threshold``: a
    multi-label baseline's decision threshold (:mod:`gfbgcn.text.linear.multilabel`;
    None: single-label); ``fit_counts``: the n-gram counts of the refit, kept on request
    (``keep_counts``) for the search's n-gram input features, which take them with
    :meth:`take_counts`.
    """

    model: LinearTextModel
    test: dict[str, Any]
    val: dict[str, Any]
    probabilities: np.ndarray
    seconds: float
    val_probabilities: np.ndarray | None = None
    val_idx: np.ndarray | None = None
    grid: list[dict[str, Any]] = field(default_factory=list)
    class_weight: str | None = None
    threshold: float | None = None  # multi-label: the decision threshold
    fit_counts: FittedCounts | None = field(default=None, repr=False)

    def take_counts(self) -> FittedCounts | None:
        """The kept n-gram counts, released from this result (None if none were kept)."""
        counts, self.fit_counts = self.fit_counts, None
        return counts

    def val_proba(self) -> np.ndarray:
        """The validation documents' held-out probabilities (``val_idx`` order)."""
        if self.val_probabilities is None:
            assert self.val_idx is not None
            return self.probabilities[self.val_idx]
        return self.val_probabilities


def corpus_probabilities(model: LinearTextModel, texts: Sequence[str], fit_idx: np.ndarray,
                         x_fit: sp.csr_matrix, rest_counts: list[sp.csr_matrix] | None = None
                         ) -> np.ndarray:
    """``[num_docs, C]`` probabilities of ``model`` for every document: those of the fitting
    documents ``fit_idx`` from their TF-IDF rows ``x_fit``, the others from their texts, or
    from ``rest_counts`` (their raw counts under ``model.ngrams``, in document order)."""
    probs = np.empty((len(texts), len(model.label_names)))
    probs[fit_idx] = model.proba_of(x_fit)
    rest = np.setdiff1d(np.arange(len(texts)), fit_idx)
    if len(rest) and rest_counts is not None and model.ngrams is not None:
        probs[rest] = model.proba_of(model.ngrams.transform_counts(rest_counts))
    elif len(rest):
        probs[rest] = model.predict_proba([texts[i] for i in rest])
    return probs


def _choose_on_validation(x_train: sp.csr_matrix, y_train: np.ndarray, x_val: sp.csr_matrix,
                          y_val: np.ndarray, points: list[GridPoint], num_classes: int,
                          seed: int, class_weight: str | None
                          ) -> tuple[GridPoint, float, np.ndarray, list[dict[str, Any]]]:
    """Fit every grid point on the training rows and score it on the validation rows.

    Returns ``(best point, its temperature, its validation probabilities, one row per point)``;
    best: the highest validation accuracy (:func:`best_on_validation`).

    Args:
        x_train, y_train: the training documents' TF-IDF rows and classes.
        x_val, y_val: the validation documents'.
        points: the grid (:func:`grid`).
        num_classes: the classes of the corpus.
        seed, class_weight: see :func:`fit_baseline`.
    """
    def evaluate(point: GridPoint) -> tuple[float, float, dict, Any]:
        coef, intercept = fit_point(x_train, y_train, num_classes, point, seed, class_weight)
        scores = linear_scores(x_val, coef, intercept)
        t = choose_temperature(scores, y_val)
        probs = softmax(scores / t, axis=1)
        acc = float((probs.argmax(1) == y_val).mean()) if len(y_val) else 0.0
        loss = mean_log_loss(y_val, probs) if len(y_val) else 0.0
        return acc, loss, {"val_accuracy": acc, "val_log_loss": loss, "temperature": t}, \
            (t, probs)

    point, (t, probs), rows = best_on_validation(points, evaluate)
    return point, t, probs, rows


def fit_baseline(texts: Sequence[str], labels: np.ndarray, label_names: Sequence[str],
                 train_idx: np.ndarray, val_idx: np.ndarray, test_idx: np.ndarray,
                 tokenizer_name: str = "unicode", seed: int = 0, *, class_weight: str | None = None,
                 hashed: bool | None = None, keep_counts: bool = False) -> BaselineResult:
    """Choose the classifier on ``val_idx`` (fitted on ``train_idx``), refit it on both, and
    evaluate it on ``test_idx``.

    Args:
        texts: every document of the corpus.
        labels: ``[num_docs]`` class indices (those of test documents are read only to score).
        label_names: the class names, in index order.
        train_idx, val_idx, test_idx: the graph model's document splits.
        tokenizer_name: the graph's tokenizer, recorded with the model (in the saved JSON),
            not used by the n-gram features.
        seed: ``random_state`` of the stochastic solvers.
        class_weight: ``"balanced"`` weighs classes inversely to their training frequency.
        hashed: the scale mode; None: when there are more than :data:`HASH_ABOVE` training
            documents or :data:`HASH_CHARS` characters of training text.
        keep_counts: keep the refit's n-gram counts in ``fit_counts`` (vocabulary mode only).
    """
    start, num_classes, labels = time.perf_counter(), len(label_names), np.asarray(labels)
    texts = list(texts)
    train_idx, val_idx = np.asarray(train_idx), np.asarray(val_idx)
    fit_idx = np.concatenate([train_idx, val_idx])  # the whole training split
    hashed = needs_hashing(texts, fit_idx) if hashed is None else hashed
    ngrams, fit_counts = NgramFeatures.fit([texts[i] for i in fit_idx], hashed)
    x_fit = ngrams.transform_counts(fit_counts)
    kept = FittedCounts(ngrams, fit_idx, fit_counts) if keep_counts and not hashed else None
    del fit_counts
    y_val = labels[val_idx]
    point, t, val_probs, rows = _choose_on_validation(
        x_fit[:len(train_idx)], labels[train_idx], x_fit[len(train_idx):], y_val,
        grid(hashed, num_classes), num_classes, seed, class_weight)
    coef, intercept = fit_point(x_fit, labels[fit_idx], num_classes, point, seed, class_weight)
    present = intercept != ABSENT  # the absent classes' -30 stays as it is
    coef, intercept = coef / t, np.where(present, intercept / t, ABSENT)
    model = LinearTextModel(
        ngrams=ngrams, coef=coef, intercept=intercept, label_names=list(label_names),
        tokenizer_name=tokenizer_name, C=float(point.value), kind=point.kind,
        params=point.params, temperature=t)
    rest = np.setdiff1d(np.arange(len(texts)), fit_idx)  # counted once, for the n-gram input too
    rest_counts = ngrams.counts([texts[i] for i in rest]) if len(rest) else None
    probs = corpus_probabilities(model, texts, fit_idx, x_fit, rest_counts)
    if kept is not None:
        kept.rest, kept.rest_blocks = rest, rest_counts
    pred = probs.argmax(1)
    return BaselineResult(
        model=model,
        test=classification_metrics(labels[test_idx], pred[test_idx], num_classes),
        val=classification_metrics(y_val, val_probs.argmax(1), num_classes),
        probabilities=probs,
        seconds=time.perf_counter() - start,
        val_probabilities=val_probs,
        val_idx=val_idx,
        grid=rows, class_weight=class_weight, fit_counts=kept,
    )


def graph_split(graph, val_ratio: float, seed: int) -> dict[str, np.ndarray]:
    """The train/validation/test document indices of a graph model trained on ``graph`` with
    ``val_ratio`` and ``seed`` (see :meth:`TextGraph.to_data`)."""
    data = graph.to_data(val_ratio, seed, edges=False)  # masks only: no copy of the edges
    d = graph.num_docs
    return {name: getattr(data, f"{name}_mask")[:d].nonzero().view(-1).numpy()
            for name in ("train", "val", "test")}


def baseline_for_graph(corpus, graph, val_ratio: float, seed: int,
                       class_weight: str | None = None, keep_counts: bool = False
                       ) -> BaselineResult:
    """The baseline on the same train/validation/test documents as a graph model trained on
    ``graph`` with ``val_ratio`` and ``seed``.

    Args:
        corpus: the corpus the graph was built from (its ``texts``).
        graph: the :class:`TextGraph` (labels, label names, tokenizer name, the split).
        val_ratio, seed: the graph model's validation split and seed.
        class_weight, keep_counts: see :func:`fit_baseline`.
    """
    idx = graph_split(graph, val_ratio, seed)
    return fit_baseline(corpus.texts, graph.labels, graph.label_names, idx["train"], idx["val"],
                        idx["test"], graph.tokenizer, seed,
                        class_weight=class_weight, keep_counts=keep_counts)

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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.special import expit, softmax

from gfbgcn.core.metrics import classification_metrics, mean_log_loss, test_metrics
from gfbgcn.text.corpus.weights import ClassWeight, folded_weights
from gfbgcn.text.linear.doc_graph import DocumentVectors, Smoothing, heaviest_terms, unit_rows
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

    Its features are the n-gram TF-IDF (``ngrams``), a frozen encoder's document embeddings
    times ``encoder_scale`` (> 0; :mod:`gfbgcn.text.linear.encoder`), or both side by side
    (n-grams first).  ``embed`` (not saved) embeds texts with that encoder: whoever loads or
    fits the model sets it (:func:`gfbgcn.text.predict.saved.load_model`).
    """

    ngrams: NgramFeatures | None = field(repr=False)
    coef: np.ndarray  # float64 [C, V] (binary problems: the two rows of +-w/2, see fit)
    intercept: np.ndarray  # float64 [C]
    label_names: list[str]
    tokenizer_name: str
    C: float
    kind: str
    params: dict[str, Any] = field(default_factory=dict)
    temperature: float = 1.0
    multi_label: bool = False
    encoder_scale: float = 0.0
    embed: Callable[[list[str]], np.ndarray] | None = field(default=None, repr=False,
                                                            compare=False)
    #: the encoder's record (:meth:`gfbgcn.text.encoder.EncoderIdentity.to_dict`) where the
    #: model uses one: a saved model keeps it in its ``config.json``, not in ``linear.json``
    encoder_identity: dict[str, Any] | None = field(default=None, repr=False, compare=False)
    #: its answers smoothed over the graph of the documents it was fitted beside, applied to
    #: new documents by :meth:`predict_proba` (:mod:`gfbgcn.text.linear.smoothing`)
    smoothing: Smoothing | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.ngrams is None and self.encoder_scale <= 0:
            raise ValueError("a linear model needs n-gram features, encoder embeddings or both")

    @property
    def idf(self) -> np.ndarray:
        """``[V]`` float64: the IDF of the n-gram columns (none without n-grams)."""
        return self.ngrams.idf if self.ngrams is not None else np.zeros(0)

    @property
    def uses_encoder(self) -> bool:
        return self.encoder_scale > 0

    @property
    def description(self) -> str:
        """``svm C=0.3``: the kind and its chosen regularisation (and its smoothing), for
        printing."""
        words = [self.kind, *(f"{k}={v:g}" for k, v in self.params.items())]
        return " ".join(words + ([self.smoothing.description] if self.smoothing else []))

    @property
    def grid_point(self) -> GridPoint:
        """The classifier as the grid point it was chosen as (kind, regularisation, scale)."""
        param = "C" if "C" in self.params else "alpha"
        return GridPoint(self.kind, param, float(self.params.get(param, self.C)),
                         float(self.params.get("scale", 0.0)))

    @property
    def document_graphs(self) -> tuple[str, ...]:
        """The documents' graphs its own features can make
        (:data:`~gfbgcn.text.linear.doc_graph.GRAPHS`): ``words`` with a word vocabulary (not
        hashed), ``encoder`` with an encoder's embeddings, ``both`` with both."""
        words = self.ngrams is not None and bool(self.ngrams.word_vocab)
        return tuple(g for g, ok in (("words", words), ("encoder", self.uses_encoder),
                                     ("both", words and self.uses_encoder)) if ok)

    def document_vectors(self, x: sp.csr_matrix) -> DocumentVectors:
        """The vectors its graphs compare documents by, from their feature rows ``x``
        (:meth:`features`): the word block's heaviest terms and the embeddings, each of unit
        length (:class:`~gfbgcn.text.linear.doc_graph.DocumentVectors`)."""
        x = sp.csr_matrix(x)
        width = self.ngrams.num_features if self.ngrams is not None else 0
        words = None
        if self.ngrams is not None and self.ngrams.word_vocab:
            words = heaviest_terms(x[:, :len(self.ngrams.word_vocab)])
        embeddings = unit_rows(x[:, width:].toarray()) if self.uses_encoder else None
        return DocumentVectors(words, embeddings)

    def features(self, texts: Sequence[str]) -> sp.csr_matrix:
        """``[n, V]`` feature rows of ``texts``: their TF-IDF, their scaled embeddings, or both
        side by side."""
        texts = list(texts)
        tfidf = self.ngrams.transform(texts) if self.ngrams is not None else None
        if not self.uses_encoder:
            assert tfidf is not None
            return tfidf
        if self.embed is None:
            raise ValueError("this linear model uses an encoder's embeddings: load it with "
                             "gfbgcn.load, or set its embed function")
        return stack_features(tfidf, self.embed(texts), self.encoder_scale)

    def proba_of(self, x: sp.csr_matrix) -> np.ndarray:
        """Class (multi-label: label) probabilities of TF-IDF rows ``x``."""
        scores = np.asarray(x @ self.coef.T) + self.intercept[None, :]
        return expit(scores) if self.multi_label else softmax(scores, axis=1)

    def predict_proba(self, texts: Sequence[str] | str) -> np.ndarray:
        """``[n, C]`` class probabilities of ``texts`` (smoothed over the fitting corpus's
        documents when the model has its :attr:`smoothing`)."""
        if isinstance(texts, str):
            texts = [texts]
        x = self.features(texts)
        probs = self.proba_of(x)
        if self.smoothing is None:
            return probs
        return self.smoothing.apply(probs, self.document_vectors(x))

    def to_tensors(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """``(arrays, JSON metadata)`` for safetensors + JSON (no pickle)."""
        arrays = {"idf": self.idf, "coef": self.coef, "intercept": self.intercept}
        # "vocab" stays in the format, empty: the n-gram vocabularies are in "features"
        meta: dict[str, Any] = {"vocab": [], "label_names": self.label_names,
                                "tokenizer": self.tokenizer_name, "C": self.C,
                                "features": None if self.ngrams is None else self.ngrams.meta(),
                                "kind": self.kind, "params": self.params,
                                "temperature": self.temperature}
        if self.multi_label:
            meta["multi_label"] = True
        if self.uses_encoder:  # the encoder itself is the model directory's (config.json)
            meta["encoder"] = {"scale": self.encoder_scale}
        if self.smoothing is not None:
            more, meta["smoothing"] = self.smoothing.to_tensors()
            arrays.update(more)
        return arrays, meta

    @classmethod
    def from_tensors(cls, arrays: dict[str, np.ndarray], meta: dict[str, Any]
                     ) -> LinearTextModel:
        """The model of :meth:`to_tensors`' output; a ``ValueError`` (:data:`OLD_FORMAT`) for
        the unigram format of older models."""
        encoder = meta.get("encoder")
        if meta.get("features") is None and encoder is None:
            raise ValueError(OLD_FORMAT)
        scale = float(encoder["scale"]) if isinstance(encoder, dict) else 0.0
        idf = np.asarray(arrays["idf"], np.float64)
        ngrams = None if meta.get("features") is None else \
            NgramFeatures.from_meta(meta["features"], idf)
        smoothing = None if meta.get("smoothing") is None else \
            Smoothing.from_tensors(arrays, meta["smoothing"])
        return cls(ngrams=ngrams, encoder_scale=scale,
                   coef=np.asarray(arrays["coef"], np.float64),
                   intercept=np.asarray(arrays["intercept"], np.float64),
                   label_names=list(meta["label_names"]), tokenizer_name=meta["tokenizer"],
                   C=float(meta["C"]), kind=str(meta["kind"]), params=dict(meta["params"]),
                   temperature=float(meta["temperature"]),
                   multi_label=bool(meta.get("multi_label", False)), smoothing=smoothing)


@dataclass
class BaselineResult:
    """A fitted baseline and what it scored.

    ``probabilities``: ``[num_docs, C]`` of the refitted model for every document of the
    corpus; ``val_probabilities``: ``[len(val_idx), C]`` of the model fitted *without* the
    validation documents -- what every choice on validation must use.  ``grid``: one entry per
    grid point (kind, params, validation accuracy and log-loss); ``class_weight``: how its
    fits weighed the classes (None, ``"balanced"`` or weights by label name,
    :func:`fit_baseline`); ``threshold``: a
    multi-label baseline's decision threshold (:mod:`gfbgcn.text.linear.multilabel`;
    None: single-label); ``fit_counts``: the n-gram counts of the refit, kept on request
    (``keep_counts``) for the search's n-gram input features, which take them with
    :meth:`take_counts`; ``features``: every document's feature rows ``[num_docs, V]``, kept
    on request (``keep_features``).
    """

    model: LinearTextModel
    test: dict[str, Any] | None  # None: no labelled test document
    val: dict[str, Any]
    probabilities: np.ndarray
    seconds: float
    val_probabilities: np.ndarray | None = None
    val_idx: np.ndarray | None = None
    grid: list[dict[str, Any]] = field(default_factory=list)
    class_weight: ClassWeight = None
    threshold: float | None = None  # multi-label: the decision threshold
    fit_counts: FittedCounts | None = field(default=None, repr=False)
    features: sp.csr_matrix | None = field(default=None, repr=False)

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
    if len(rest) and rest_counts is not None and model.ngrams is not None \
            and not model.uses_encoder:
        probs[rest] = model.proba_of(model.ngrams.transform_counts(rest_counts))
    elif len(rest):
        probs[rest] = model.predict_proba([texts[i] for i in rest])
    return probs


@dataclass
class ChosenFit:
    """The grid point chosen on validation and its refit (:func:`choose_and_refit`):
    ``coef``/``intercept`` with the temperature folded in, ``val_probabilities`` of the fit
    without the validation documents, ``rows`` one grid-table entry per point."""

    point: GridPoint
    temperature: float
    coef: np.ndarray
    intercept: np.ndarray
    val_probabilities: np.ndarray
    rows: list[dict[str, Any]]


def choose_and_refit(rows_of: Callable[[GridPoint], Any], y_fit: np.ndarray, n_train: int,
                     points: list[GridPoint], num_classes: int, seed: int,
                     class_weight: str | None, sample_weight: np.ndarray | None = None
                     ) -> ChosenFit:
    """Fit every grid point on the training rows, score it on the validation rows, and refit
    the best one (the highest validation accuracy, :func:`best_on_validation`) on both.

    Args:
        rows_of: ``rows_of(point)`` the ``[n_fit, V]`` feature rows the point is fitted on
            (training documents first, then the validation documents; a point's features may
            depend on it, e.g. the scale of an embedding block).
        y_fit: ``[n_fit]`` their classes.
        n_train: how many of them are training documents.
        points: the grid (:func:`grid`).
        num_classes: the classes of the corpus.
        seed: see :func:`fit_baseline`.
        class_weight: None or ``"balanced"`` (:func:`~gfbgcn.text.linear.grid.fit_point`).
        sample_weight: ``[n_fit]`` the fitting documents' weights (in ``y_fit``'s order), or
            None.  The choice on validation (accuracy, log-loss, temperature) is not weighted.
    """
    y_train, y_val = y_fit[:n_train], y_fit[n_train:]
    sw_train = None if sample_weight is None else sample_weight[:n_train]

    def evaluate(point: GridPoint) -> tuple[float, float, dict, Any]:
        x = rows_of(point)
        coef, intercept = fit_point(x[:n_train], y_train, num_classes, point, seed,
                                    class_weight, sw_train)
        scores = linear_scores(x[n_train:], coef, intercept)
        t = choose_temperature(scores, y_val)
        probs = softmax(scores / t, axis=1)
        acc = float((probs.argmax(1) == y_val).mean()) if len(y_val) else 0.0
        loss = mean_log_loss(y_val, probs) if len(y_val) else 0.0
        return acc, loss, {"val_accuracy": acc, "val_log_loss": loss, "temperature": t}, \
            (t, probs)

    point, (t, val_probs), rows = best_on_validation(points, evaluate)
    coef, intercept = fit_point(rows_of(point), y_fit, num_classes, point, seed, class_weight,
                                sample_weight)
    present = intercept != ABSENT  # the absent classes' -30 stays as it is
    return ChosenFit(point, t, coef / t, np.where(present, intercept / t, ABSENT), val_probs,
                     rows)


def stack_features(tfidf: sp.csr_matrix | None, embeddings: np.ndarray, scale: float
                   ) -> sp.csr_matrix:
    """``[n, V + d]`` rows: the TF-IDF rows (if any) and the embeddings times ``scale`` beside
    them, as one sparse matrix (the linear solvers take it as they take the n-grams)."""
    block = sp.csr_matrix(np.asarray(embeddings, dtype=np.float64) * scale)
    return block if tfidf is None else sp.hstack([tfidf, block], format="csr")


def corpus_rows(model: LinearTextModel, tfidf: sp.csr_matrix | None,
                embeddings: np.ndarray | None) -> sp.csr_matrix:
    """``[num_docs, V]`` every document's feature rows as ``model`` computes them, from the
    corpus's n-gram TF-IDF rows ``tfidf`` (those of ``model``'s vocabulary) and embeddings
    (either None where the model does not use it)."""
    if not model.uses_encoder:
        if tfidf is None:
            raise ValueError("an n-gram model needs the TF-IDF rows")
        return tfidf
    if embeddings is None:
        raise ValueError("a model with an encoder needs the embeddings")
    return stack_features(tfidf if model.ngrams is not None else None, embeddings,
                          model.encoder_scale)


def fit_baseline(texts: Sequence[str], labels: np.ndarray, label_names: Sequence[str],
                 train_idx: np.ndarray, val_idx: np.ndarray, test_idx: np.ndarray,
                 tokenizer_name: str = "unicode", seed: int = 0, *,
                 class_weight: ClassWeight = None, hashed: bool | None = None,
                 keep_counts: bool = False, keep_features: bool = False,
                 sample_weight: np.ndarray | None = None) -> BaselineResult:
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
        class_weight: ``"balanced"`` weighs classes inversely to their training frequency (in
            each fit, over the documents it is fitted on); a dict ``{label name: weight}``
            weighs each document by its class (:mod:`gfbgcn.text.corpus.weights`).
        hashed: the scale mode; None: when there are more than :data:`HASH_ABOVE` training
            documents or :data:`HASH_CHARS` characters of training text.
        keep_counts: keep the refit's n-gram counts in ``fit_counts`` (vocabulary mode only).
        keep_features: keep every document's TF-IDF row in ``features`` (for the baseline
            with encoder embeddings beside them, :mod:`gfbgcn.text.linear.encoder`).
        sample_weight: ``[num_docs]`` each document's weight in every fit, or None.
    """
    start, num_classes, labels = time.perf_counter(), len(label_names), np.asarray(labels)
    named, weights = folded_weights(labels, label_names, class_weight, sample_weight)
    texts = list(texts)
    train_idx, val_idx = np.asarray(train_idx), np.asarray(val_idx)
    fit_idx = np.concatenate([train_idx, val_idx])  # the whole training split
    hashed = needs_hashing(texts, fit_idx) if hashed is None else hashed
    ngrams, fit_counts = NgramFeatures.fit([texts[i] for i in fit_idx], hashed)
    x_fit = ngrams.transform_counts(fit_counts)
    kept = FittedCounts(ngrams, fit_idx, fit_counts) if keep_counts and not hashed else None
    del fit_counts
    chosen = choose_and_refit(lambda point: x_fit, labels[fit_idx], len(train_idx),
                              grid(hashed, num_classes), num_classes, seed, named,
                              None if weights is None else weights[fit_idx])
    model = LinearTextModel(
        ngrams=ngrams, coef=chosen.coef, intercept=chosen.intercept,
        label_names=list(label_names), tokenizer_name=tokenizer_name,
        C=float(chosen.point.value), kind=chosen.point.kind, params=chosen.point.params,
        temperature=chosen.temperature)
    rest = np.setdiff1d(np.arange(len(texts)), fit_idx)  # counted once, for the n-gram input too
    rest_counts = ngrams.counts([texts[i] for i in rest]) if len(rest) else None
    probs = corpus_probabilities(model, texts, fit_idx, x_fit, rest_counts)
    features = None
    if keep_features:  # every document's TF-IDF row, in corpus order
        parts = [x_fit] + ([ngrams.transform_counts(rest_counts)] if rest_counts else [])
        order = np.argsort(np.concatenate([fit_idx, rest]))
        features = sp.vstack(parts, format="csr")[order]
    if kept is not None:
        kept.rest, kept.rest_blocks = rest, rest_counts
    return scored(model, labels, probs, val_idx, test_idx, chosen, start, class_weight,
                  fit_counts=kept, features=features)


def scored(model: LinearTextModel, labels: np.ndarray, probs: np.ndarray, val_idx: np.ndarray,
           test_idx: np.ndarray, chosen: ChosenFit, start: float, class_weight: ClassWeight,
           **kept: Any) -> BaselineResult:
    """The :class:`BaselineResult` of a fitted single-label model: its test and validation
    metrics (validation: of the fit without those documents), timed from ``start``."""
    num_classes = len(model.label_names)
    pred = probs.argmax(1)
    return BaselineResult(
        model=model,
        test=test_metrics(labels[test_idx], pred[test_idx], num_classes),
        val=classification_metrics(labels[val_idx], chosen.val_probabilities.argmax(1),
                                   num_classes),
        probabilities=probs,
        seconds=time.perf_counter() - start,
        val_probabilities=chosen.val_probabilities,
        val_idx=val_idx,
        grid=chosen.rows, class_weight=class_weight, **kept,
    )


def graph_split(graph, val_ratio: float, seed: int) -> dict[str, np.ndarray]:
    """The train/validation/test document indices of a graph model trained on ``graph`` with
    ``val_ratio`` and ``seed`` (see :meth:`TextGraph.to_data`)."""
    data = graph.to_data(val_ratio, seed, edges=False)  # masks only: no copy of the edges
    d = graph.num_docs
    return {name: getattr(data, f"{name}_mask")[:d].nonzero().view(-1).numpy()
            for name in ("train", "val", "test")}


def baseline_for_graph(corpus, graph, val_ratio: float, seed: int,
                       class_weight: ClassWeight = None, keep_counts: bool = False,
                       keep_features: bool = False, sample_weight: np.ndarray | None = None
                       ) -> BaselineResult:
    """The baseline on the same train/validation/test documents as a graph model trained on
    ``graph`` with ``val_ratio`` and ``seed``.

    Args:
        corpus: the corpus the graph was built from (its ``texts``).
        graph: the :class:`TextGraph` (labels, label names, tokenizer name, the split).
        val_ratio, seed: the graph model's validation split and seed.
        class_weight, keep_counts, keep_features, sample_weight: see :func:`fit_baseline`.
    """
    idx = graph_split(graph, val_ratio, seed)
    return fit_baseline(corpus.texts, graph.labels, graph.label_names, idx["train"], idx["val"],
                        idx["test"], graph.tokenizer, seed,
                        class_weight=class_weight, keep_counts=keep_counts,
                        keep_features=keep_features, sample_weight=sample_weight)

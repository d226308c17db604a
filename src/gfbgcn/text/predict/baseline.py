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

Classifier: one of a small grid (:func:`grid`) -- multinomial logistic regression, a linear SVM,
SGD with the modified Huber loss, complement naive Bayes -- with its regularisation; each is
fitted on the graph model's *training* documents and scored on its *validation* documents
(accuracy, ties: lower log-loss, then the earlier grid entry).  The chosen one is then fitted
again on the whole training split (training + validation documents) before the test documents
are scored, as a practitioner would.  At scale the grid holds only the kinds whose cost is about
one pass over the data: complement naive Bayes, and SGD where there are at most
:data:`SGD_MAX_CLASSES` classes (SGD is one-vs-rest: its cost grows with the classes).

Probabilities: ``softmax(scores / T)`` with one temperature ``T`` chosen on the validation
documents (cross-entropy against Platt's smoothed targets, :func:`_choose_temperature`), from
the model fitted without them -- for every kind: the SVM's and
complement naive Bayes' losses give no probabilities, modified Huber's are poorly calibrated, and
logistic regression is fitted one-vs-rest (liblinear, see :func:`_fit_point`), whose normalised
sigmoids are not a softmax either.  The temperature is folded into the
stored coefficients, so every kind predicts ``softmax(x W^T + b)``.  The validation documents'
probabilities used for every choice downstream (the combination's weight, ``--auto``) are those
of the model fitted without them (:attr:`BaselineResult.val_probabilities`); the refitted model
gives the probabilities of every other document.

The fitted model is the n-gram vocabularies (or the hashing width), the IDF, a coefficient
matrix and an intercept: :meth:`LinearTextModel.to_tensors` / :meth:`from_tensors` store them as
safetensors + JSON, no pickle.  Models saved before 2026-11-26 (unigram TF-IDF over the graph's
tokenizer + logistic regression) still load and predict (``features`` absent in their JSON):
:func:`fit_unigram_baseline` fits one, for comparisons with the old reports.
"""

from __future__ import annotations

import sys
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy.special import softmax

from gfbgcn.core.metrics import classification_metrics, mean_log_loss
from gfbgcn.text.graph.counts import doc_word_counts
from gfbgcn.text.tokenize.clean import Tokenizer
from gfbgcn.text.tokenize.preprocess import preprocess
from gfbgcn.text.tokenize.registry import resolve_tokenizer

#: Inverse regularisation strengths of the unigram baseline (:func:`fit_unigram_baseline`).
C_GRID = (0.25, 1.0, 4.0, 16.0, 64.0)

#: Above this many training documents the features are hashed and the grid keeps SGD and
#: complement naive Bayes only (see the module docstring).
HASH_ABOVE = 50_000
#: ... or above this many characters of training text (the character block's size follows it).
HASH_CHARS = 20_000_000
#: At scale, SGD (one-vs-rest, cost proportional to the classes) only up to this many classes.
SGD_MAX_CLASSES = 20
#: Hashed feature columns at scale: 2^18 keeps the dense coefficient matrix of 115 classes at
#: 240 MB (float64), at the price of bigram collisions.
HASH_FEATURES = 2 ** 18
WORD_NGRAMS = (1, 2)
CHAR_NGRAMS = (2, 5)
#: Hash documents in a pool of processes (one per core) from this many on: the analyser is
#: Python code, the dominant cost at scale (about 1 ms per 20NG-length document).
PARALLEL_ABOVE = 20_000
#: Temperatures tried for the kinds without their own probabilities (log-spaced).
TEMPERATURES = tuple(float(t) for t in np.geomspace(1e-3, 1e3, 61))
#: Intercept of classes absent from the training documents: never predicted.
ABSENT = -30.0


def tfidf_features(counts: sp.csr_matrix, idf: np.ndarray) -> sp.csr_matrix:
    """Sublinear TF times IDF, rows L2-normalised (all-zero rows stay zero).

    Args:
        counts: ``[n, V]`` term counts.
        idf: ``[V]`` inverse document frequencies.
    """
    # in place on one float64 copy: at scale (10^8 non-zeros) every extra copy is a GB
    x = counts.tocsr().astype(np.float64, copy=True)
    np.log(x.data, out=x.data)
    x.data += 1.0
    x.data *= idf[x.indices]
    lengths = np.diff(x.indptr)
    norms = np.zeros(x.shape[0])
    rows = lengths > 0
    if x.nnz:
        norms[rows] = np.sqrt(np.add.reduceat(x.data ** 2, x.indptr[:-1][rows]))
    x.data /= np.repeat(np.where(rows, norms, 1.0), lengths)
    return x


def smoothed_idf(counts: sp.csr_matrix) -> np.ndarray:
    """``log((1 + n) / (1 + df)) + 1`` of the ``[n, V]`` counts of the fitting documents."""
    df = np.bincount(counts.tocsr().indices, minlength=counts.shape[1])
    return np.log((1.0 + counts.shape[0]) / (1.0 + df)) + 1.0


@dataclass
class NgramFeatures:
    """Word 1-2-gram + ``char_wb`` 2-5-gram TF-IDF (or hashed word n-grams at scale).

    ``word_vocab``/``char_vocab``: the n-grams in column order (None when hashed); ``idf``: the
    IDF of every column, word block first.
    """

    idf: np.ndarray
    word_vocab: list[str] | None = None
    char_vocab: list[str] | None = None
    hashed: int = 0  # > 0: hashed word n-grams into this many columns, no char block

    @classmethod
    def fit(cls, texts: Sequence[str], hashed: bool, workers: int | None = None
            ) -> tuple[NgramFeatures, list]:
        """Vocabulary and IDF of ``texts``; also their counts (one matrix per block).

        Args:
            texts: the fitting documents.
            hashed: the scale mode (see the module docstring).
            workers: processes hashing documents (None: every core; see
                :data:`PARALLEL_ABOVE`).
        """
        if hashed:
            counts = hash_counts(texts, HASH_FEATURES, workers)
            return cls(smoothed_idf(counts), hashed=HASH_FEATURES), [counts]
        blocks, vocabs = [], []
        for analyzer, ngrams in (("word", WORD_NGRAMS), ("char_wb", CHAR_NGRAMS)):
            vec = _counter(analyzer, ngrams, None)
            try:
                blocks.append(vec.fit_transform(texts))
            except ValueError:  # no word n-gram at all (e.g. only 1-character words)
                blocks.append(sp.csr_matrix((len(texts), 0)))
                vocabs.append([])
                continue
            names = vec.get_feature_names_out()
            vocabs.append([str(t) for t in names])
        idf = np.concatenate([smoothed_idf(b) for b in blocks])
        return cls(idf, vocabs[0], vocabs[1]), blocks

    @property
    def num_features(self) -> int:
        return len(self.idf)

    def counts(self, texts: Sequence[str], workers: int | None = None) -> list[sp.csr_matrix]:
        """The raw counts of ``texts``, one matrix per block (``workers``: see :meth:`fit`)."""
        if self.hashed:
            return [hash_counts(texts, self.hashed, workers)]
        out = []
        for analyzer, ngrams, vocab in (("word", WORD_NGRAMS, self.word_vocab),
                                        ("char_wb", CHAR_NGRAMS, self.char_vocab)):
            if not vocab:
                out.append(sp.csr_matrix((len(texts), 0)))
            else:
                out.append(_counter(analyzer, ngrams, vocab).transform(texts))
        return out

    def transform_counts(self, blocks: list[sp.csr_matrix]) -> sp.csr_matrix:
        """TF-IDF of counts from :meth:`counts` (each block normalised on its own)."""
        parts, start = [], 0
        for b in blocks:
            idf = self.idf[start:start + b.shape[1]]
            start += b.shape[1]
            parts.append(tfidf_features(b, idf))
        return sp.hstack(parts, format="csr") if len(parts) > 1 else parts[0]

    def transform(self, texts: Sequence[str], workers: int | None = None) -> sp.csr_matrix:
        """``[n, num_features]`` TF-IDF rows of ``texts`` (``workers``: see :meth:`fit`)."""
        return self.transform_counts(self.counts(texts, workers))

    def meta(self) -> dict[str, Any]:
        return {"word_ngrams": list(WORD_NGRAMS), "char_ngrams": list(CHAR_NGRAMS),
                "hashed": self.hashed, "word_vocab": self.word_vocab,
                "char_vocab": self.char_vocab}

    @classmethod
    def from_meta(cls, meta: dict[str, Any], idf: np.ndarray) -> NgramFeatures:
        if tuple(meta["word_ngrams"]) != WORD_NGRAMS or tuple(meta["char_ngrams"]) != CHAR_NGRAMS:
            raise ValueError(f"n-gram ranges {meta['word_ngrams']}/{meta['char_ngrams']} are not "
                             f"this version's {WORD_NGRAMS}/{CHAR_NGRAMS}")
        out = cls(idf, meta.get("word_vocab"), meta.get("char_vocab"), int(meta["hashed"]))
        width = out.hashed or len(out.word_vocab or ()) + len(out.char_vocab or ())
        if width != len(idf):
            raise ValueError(f"{width} n-gram features but {len(idf)} IDF values")
        return out


def _counter(analyzer: str, ngrams: tuple[int, int], vocab: list[str] | None):
    from sklearn.feature_extraction.text import CountVectorizer

    return CountVectorizer(analyzer=analyzer, ngram_range=ngrams, dtype=np.float64,
                           vocabulary=None if vocab is None else {t: i for i, t in
                                                                  enumerate(vocab)})


_CHUNK_TEXTS: Sequence[str] = ()  # the documents of hash_counts' workers (inherited by fork)


def _hash_chunk(bounds: tuple[int, int, int]) -> sp.csr_matrix:
    start, end, n_features = bounds
    return _hashing(n_features).transform(_CHUNK_TEXTS[start:end]).tocsr()


def hash_counts(texts: Sequence[str], n_features: int, workers: int | None = None
                ) -> sp.csr_matrix:
    """Hashed word 1-2-gram counts of ``texts`` (float32), in ``workers`` forked processes
    (None: every core) from :data:`PARALLEL_ABOVE` documents on; the same matrix either way.

    Args:
        texts: the documents.
        n_features: the hashing width.
        workers: processes (None: every available core).
    """
    global _CHUNK_TEXTS
    from gfbgcn.text.graph.sharded import available_cores

    workers = available_cores() if workers is None else workers
    if workers <= 1 or len(texts) < PARALLEL_ABOVE or sys.platform == "win32":
        return _hashing(n_features).transform(texts).tocsr()
    import multiprocessing

    from gfbgcn.core.processes import worker_pool

    cuts = np.linspace(0, len(texts), 4 * workers + 1).astype(int)  # small tasks balance
    _CHUNK_TEXTS = texts
    try:
        with worker_pool(multiprocessing.get_context("fork"), workers) as pool:
            parts = pool.map(_hash_chunk, [(int(a), int(b), n_features)
                                           for a, b in zip(cuts[:-1], cuts[1:])])
    finally:
        _CHUNK_TEXTS = ()
    return sp.vstack(parts, format="csr")


def _hashing(n_features: int):
    from sklearn.feature_extraction.text import HashingVectorizer

    # no sign flipping and no normalisation: these are counts, TF-IDF follows
    return HashingVectorizer(analyzer="word", ngram_range=WORD_NGRAMS, n_features=n_features,
                             alternate_sign=False, norm=None, dtype=np.float32)


@dataclass
class LinearTextModel:
    """A fitted linear text classifier: everything :meth:`predict_proba` needs.

    ``coef``/``intercept`` already include the calibration temperature, so
    ``predict_proba(x) = softmax(features(x) @ coef.T + intercept)`` for every kind.
    ``features`` is None for a model of the old unigram format, whose features are the graph
    tokenizer's words (``vocab``, ``tokenizer_name``).
    """

    vocab: list[str]
    idf: np.ndarray  # float64 [V]
    coef: np.ndarray  # float64 [C, V] (binary problems: the two rows of +-w/2, see fit)
    intercept: np.ndarray  # float64 [C]
    label_names: list[str]
    tokenizer_name: str
    C: float
    tokenizer: Tokenizer | None = field(default=None, repr=False)
    ngrams: NgramFeatures | None = field(default=None, repr=False)
    kind: str = "lr-unigram"
    params: dict[str, Any] = field(default_factory=dict)
    temperature: float = 1.0

    def __post_init__(self) -> None:
        self._index = pd.Index(self.vocab) if self.ngrams is None else None

    @property
    def description(self) -> str:
        """``svm C=0.3``: the kind and its chosen regularisation, for printing."""
        return " ".join([self.kind, *(f"{k}={v:g}" for k, v in self.params.items())])

    def features(self, texts: Sequence[str]) -> sp.csr_matrix:
        """``[n, V]`` TF-IDF rows of ``texts``."""
        if self.ngrams is not None:
            return self.ngrams.transform(list(texts))
        if self.tokenizer is None:
            self.tokenizer = resolve_tokenizer(self.tokenizer_name)
        tc = preprocess(list(texts), self.tokenizer, vocab=self.vocab, vocab_index=self._index,
                        stop_words=None)
        return tfidf_features(doc_word_counts(tc), self.idf)

    def proba_of(self, x: sp.csr_matrix) -> np.ndarray:
        """Class probabilities of TF-IDF rows ``x``."""
        return softmax(np.asarray(x @ self.coef.T) + self.intercept[None, :], axis=1)

    def predict_proba(self, texts: Sequence[str] | str) -> np.ndarray:
        """``[n, C]`` class probabilities of ``texts``."""
        if isinstance(texts, str):
            texts = [texts]
        return self.proba_of(self.features(texts))

    def to_tensors(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """``(arrays, JSON metadata)`` for safetensors + JSON (no pickle)."""
        arrays = {"idf": self.idf, "coef": self.coef, "intercept": self.intercept}
        meta: dict[str, Any] = {"vocab": self.vocab, "label_names": self.label_names,
                                "tokenizer": self.tokenizer_name, "C": self.C}
        if self.ngrams is not None:
            meta.update(features=self.ngrams.meta(), kind=self.kind, params=self.params,
                        temperature=self.temperature)
        return arrays, meta

    @classmethod
    def from_tensors(cls, arrays: dict[str, np.ndarray], meta: dict[str, Any],
                     tokenizer: Tokenizer | None = None) -> LinearTextModel:
        """The model of :meth:`to_tensors`' output (either format)."""
        idf = np.asarray(arrays["idf"], np.float64)
        ngrams = None
        if meta.get("features") is not None:
            ngrams = NgramFeatures.from_meta(meta["features"], idf)
        return cls(vocab=list(meta["vocab"]), idf=idf,
                   coef=np.asarray(arrays["coef"], np.float64),
                   intercept=np.asarray(arrays["intercept"], np.float64),
                   label_names=list(meta["label_names"]), tokenizer_name=meta["tokenizer"],
                   C=float(meta["C"]), tokenizer=tokenizer, ngrams=ngrams,
                   kind=str(meta.get("kind", "lr-unigram")),
                   params=dict(meta.get("params", {"C": float(meta["C"])})),
                   temperature=float(meta.get("temperature", 1.0)))


@dataclass
class BaselineResult:
    """A fitted baseline and what it scored.

    ``probabilities``: ``[num_docs, C]`` of the refitted model for every document of the
    corpus; ``val_probabilities``: ``[len(val_idx), C]`` of the model fitted *without* the
    validation documents -- what every choice on validation must use.  ``grid``: one entry per
    grid point (kind, params, validation accuracy and log-loss).
    """

    model: LinearTextModel
    test: dict[str, Any]
    val: dict[str, Any]
    probabilities: np.ndarray
    val_by_C: dict[float, float]
    seconds: float
    val_probabilities: np.ndarray | None = None
    val_idx: np.ndarray | None = None
    grid: list[dict[str, Any]] = field(default_factory=list)

    def val_proba(self) -> np.ndarray:
        """The validation documents' held-out probabilities (``val_idx`` order)."""
        if self.val_probabilities is None:  # the unigram baseline: fitted without them
            assert self.val_idx is not None
            return self.probabilities[self.val_idx]
        return self.val_probabilities


# ---------------------------------------------------------------------------------------------
# The grid


@dataclass(frozen=True)
class GridPoint:
    kind: str  # "lr", "svm", "sgd", "cnb"
    param: str  # "C" or "alpha"
    value: float

    @property
    def params(self) -> dict[str, float]:
        return {self.param: self.value}


def grid(hashed: bool, num_classes: int = 2) -> list[GridPoint]:
    """The kinds and regularisation strengths tried on validation (at scale: complement naive
    Bayes, and SGD up to :data:`SGD_MAX_CLASSES` classes).

    Args:
        hashed: the scale mode (hashed features).
        num_classes: the classes of the corpus.
    """
    cnb = [GridPoint("cnb", "alpha", a) for a in (0.1, 0.3, 1.0)]
    if hashed:
        sgd = [GridPoint("sgd", "alpha", a) for a in (1e-5, 1e-4)]
        return (sgd if num_classes <= SGD_MAX_CLASSES else []) + cnb
    return [GridPoint("svm", "C", c) for c in (0.1, 0.3, 1.0)] + \
        [GridPoint("lr", "C", c) for c in (1.0, 10.0, 100.0)] + \
        [GridPoint("sgd", "alpha", a) for a in (1e-5, 3e-5, 1e-4)] + cnb


def _balanced(y: np.ndarray) -> np.ndarray:
    """scikit-learn's "balanced" sample weights ``n / (k * count[y])``."""
    classes, inverse, counts = np.unique(y, return_inverse=True, return_counts=True)
    return len(y) / (len(classes) * counts[inverse])


def _fit_point(x: sp.csr_matrix, y: np.ndarray, num_classes: int, point: GridPoint, seed: int,
               class_weight: str | None) -> tuple[np.ndarray, np.ndarray]:
    """``(coef [C, V], intercept [C])`` of one grid point's classifier; its scores are
    ``x @ coef.T + intercept`` (before any temperature)."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import LogisticRegression, SGDClassifier
    from sklearn.naive_bayes import ComplementNB
    from sklearn.svm import LinearSVC

    classes = np.unique(y)
    coef = np.zeros((num_classes, x.shape[1]))
    intercept = np.full(num_classes, ABSENT)
    if len(classes) == 1:
        intercept[classes[0]] = 0.0
        return coef, intercept
    weights = None
    if point.kind == "lr-unigram":  # the old baseline, as it was
        clf = LogisticRegression(C=point.value, max_iter=1000, random_state=seed)
    elif point.kind == "lr":
        # liblinear (one-vs-rest): lbfgs on 10^5 n-gram columns took 5 s a fit on a loaded
        # 2-core machine against 0.1 s; its scores are calibrated by the temperature
        clf = LogisticRegression(C=point.value, solver="liblinear", random_state=seed,
                                 class_weight=class_weight)
        if len(classes) > 2:  # liblinear is binary in scikit-learn >= 1.8
            from sklearn.multiclass import OneVsRestClassifier

            # "balanced" inside each binary problem would weigh one class against the rest
            clf = OneVsRestClassifier(clf)
    elif point.kind == "svm":
        clf = LinearSVC(C=point.value, random_state=seed, class_weight=class_weight)
    elif point.kind == "sgd":
        clf = SGDClassifier(loss="modified_huber", alpha=point.value, random_state=seed,
                            class_weight=class_weight)
    elif point.kind == "cnb":
        clf = ComplementNB(alpha=point.value)
        weights = _balanced(y) if class_weight == "balanced" else None
    else:
        raise ValueError(f"unknown linear kind {point.kind!r}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        if weights is None:
            clf.fit(x, y)
        else:
            clf.fit(x, y, sample_weight=weights)
    if point.kind == "cnb":
        # ComplementNB predicts argmax of x @ feature_log_prob_.T (no prior with > 1 class)
        w, b = clf.feature_log_prob_, np.zeros(len(classes))
    elif point.kind == "lr" and len(classes) > 2:  # one binary model per class
        w = np.vstack([e.coef_ for e in clf.estimators_])
        b = np.concatenate([np.ravel(e.intercept_) for e in clf.estimators_]).astype(np.float64)
    else:
        w, b = clf.coef_, np.asarray(clf.intercept_, dtype=np.float64)
    if w.shape[0] == 1:  # binary: one row; softmax of (-s/2, s/2) is sigmoid(s)
        w, b = np.vstack([-w / 2, w / 2]), np.array([-b[0] / 2, b[0] / 2])
    coef[classes], intercept[classes] = w, b
    return coef, intercept


def _choose_temperature(scores: np.ndarray, y: np.ndarray) -> float:
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


def _scores(x: sp.csr_matrix, coef: np.ndarray, intercept: np.ndarray) -> np.ndarray:
    return np.asarray(x @ coef.T) + intercept[None, :]


def fit_baseline(texts: Sequence[str], labels: np.ndarray, label_names: Sequence[str],
                 train_idx: np.ndarray, val_idx: np.ndarray, test_idx: np.ndarray,
                 tokenizer: Tokenizer | None = None, tokenizer_name: str = "unicode",
                 seed: int = 0, *, class_weight: str | None = None,
                 hashed: bool | None = None) -> BaselineResult:
    """Choose the classifier on ``val_idx`` (fitted on ``train_idx``), refit it on both, and
    evaluate it on ``test_idx``.

    Args:
        texts: every document of the corpus.
        labels: ``[num_docs]`` class indices (those of test documents are read only to score).
        label_names: the class names, in index order.
        train_idx, val_idx, test_idx: the graph model's document splits.
        tokenizer, tokenizer_name: the graph's tokenizer; recorded with the model (its name is
            in the saved JSON), not used by the n-gram features.
        seed: ``random_state`` of the stochastic solvers.
        class_weight: ``"balanced"`` weighs classes inversely to their training frequency.
        hashed: the scale mode; None: when there are more than :data:`HASH_ABOVE` training
            documents or :data:`HASH_CHARS` characters of training text.
    """
    start = time.perf_counter()
    num_classes = len(label_names)
    labels = np.asarray(labels)
    texts = list(texts)
    train_idx, val_idx = np.asarray(train_idx), np.asarray(val_idx)
    fit_idx = np.concatenate([train_idx, val_idx])  # the whole training split
    if hashed is None:
        hashed = len(fit_idx) > HASH_ABOVE or \
            sum(len(texts[i]) for i in fit_idx) > HASH_CHARS
    ngrams, fit_counts = NgramFeatures.fit([texts[i] for i in fit_idx], hashed)
    x_fit = ngrams.transform_counts(fit_counts)
    del fit_counts
    x_train, x_val = x_fit[:len(train_idx)], x_fit[len(train_idx):]
    y_train, y_val = labels[train_idx], labels[val_idx]
    best: tuple | None = None
    rows = []
    for point in grid(hashed, num_classes):
        coef, intercept = _fit_point(x_train, y_train, num_classes, point, seed, class_weight)
        scores = _scores(x_val, coef, intercept)
        t = _choose_temperature(scores, y_val)
        probs = softmax(scores / t, axis=1)
        acc = float((probs.argmax(1) == y_val).mean()) if len(val_idx) else 0.0
        loss = mean_log_loss(y_val, probs) if len(val_idx) else 0.0
        rows.append({"kind": point.kind, **point.params, "val_accuracy": acc,
                     "val_log_loss": loss, "temperature": t})
        if best is None or (acc, -loss) > best[0]:
            best = ((acc, -loss), point, t, probs)
    assert best is not None
    _, point, t, val_probs = best
    coef, intercept = _fit_point(x_fit, labels[fit_idx], num_classes, point, seed, class_weight)
    present = intercept != ABSENT  # the absent classes' -30 stays as it is
    coef, intercept = coef / t, np.where(present, intercept / t, ABSENT)
    model = LinearTextModel(
        vocab=[], idf=ngrams.idf, coef=coef, intercept=intercept, label_names=list(label_names),
        tokenizer_name=tokenizer_name, C=float(point.value), tokenizer=tokenizer, ngrams=ngrams,
        kind=point.kind, params=point.params, temperature=t)
    rest = np.setdiff1d(np.arange(len(texts)), fit_idx)
    probs = np.empty((len(texts), num_classes))
    probs[fit_idx] = model.proba_of(x_fit)
    if len(rest):
        probs[rest] = model.predict_proba([texts[i] for i in rest])
    pred = probs.argmax(1)
    return BaselineResult(
        model=model,
        test=classification_metrics(labels[test_idx], pred[test_idx], num_classes),
        val=classification_metrics(y_val, val_probs.argmax(1), num_classes),
        probabilities=probs,
        val_by_C={},
        seconds=time.perf_counter() - start,
        val_probabilities=val_probs,
        val_idx=val_idx,
        grid=rows,
    )


# ---------------------------------------------------------------------------------------------
# The unigram TF-IDF + LR baseline of the reports before 2026-11-26, kept as a named option


def _fit_unigram(x: sp.csr_matrix, y: np.ndarray, num_classes: int, C: float, seed: int
                 ) -> tuple[np.ndarray, np.ndarray]:
    return _fit_point(x, y, num_classes, GridPoint("lr-unigram", "C", C), seed, None)


def fit_unigram_baseline(texts: Sequence[str], labels: np.ndarray, label_names: Sequence[str],
                         train_idx: np.ndarray, val_idx: np.ndarray, test_idx: np.ndarray,
                         tokenizer: Tokenizer, tokenizer_name: str, seed: int = 0
                         ) -> BaselineResult:
    """The old baseline: unigram TF-IDF over ``tokenizer``'s words + logistic regression,
    fitted on ``train_idx`` only, ``C`` chosen on ``val_idx`` (no refit)."""
    start = time.perf_counter()
    num_classes = len(label_names)
    labels = np.asarray(labels)
    train_tc = preprocess([texts[i] for i in train_idx], tokenizer, min_freq=1, stop_words=None)
    vocab = train_tc.vocab
    idf = smoothed_idf(doc_word_counts(train_tc))
    model = LinearTextModel(vocab, idf, np.zeros((num_classes, len(vocab))),
                            np.zeros(num_classes), list(label_names), tokenizer_name, 1.0,
                            tokenizer, params={"C": 1.0})
    x_all = model.features(texts)
    y_train, y_val = labels[train_idx], labels[val_idx]
    best: tuple | None = None
    val_by_C: dict[float, float] = {}
    for C in C_GRID:
        coef, intercept = _fit_unigram(x_all[train_idx], y_train, num_classes, C, seed)
        probs = softmax(_scores(x_all[val_idx], coef, intercept), axis=1)
        acc = float((probs.argmax(1) == y_val).mean()) if len(val_idx) else 0.0
        val_by_C[C] = acc
        score = (acc, -mean_log_loss(y_val, probs) if len(val_idx) else 0.0)
        if best is None or score > best[0]:
            best = (score, C, coef, intercept)
    assert best is not None
    _, model.C, model.coef, model.intercept = best
    model.params = {"C": model.C}
    probs = model.proba_of(x_all)
    pred = probs.argmax(1)
    return BaselineResult(
        model=model,
        test=classification_metrics(labels[test_idx], pred[test_idx], num_classes),
        val=classification_metrics(y_val, pred[val_idx], num_classes),
        probabilities=probs, val_by_C=val_by_C, seconds=time.perf_counter() - start,
        val_idx=np.asarray(val_idx),
    )


def graph_split(graph, val_ratio: float, seed: int) -> dict[str, np.ndarray]:
    """The train/validation/test document indices of a graph model trained on ``graph`` with
    ``val_ratio`` and ``seed`` (see :meth:`TextGraph.to_data`)."""
    data = graph.to_data(val_ratio, seed)
    d = graph.num_docs
    return {name: getattr(data, f"{name}_mask")[:d].nonzero().view(-1).numpy()
            for name in ("train", "val", "test")}


def baseline_for_graph(corpus, graph, tokenizer: Tokenizer, val_ratio: float, seed: int,
                       class_weight: str | None = None) -> BaselineResult:
    """The baseline on the same train/validation/test documents as a graph model trained on
    ``graph`` with ``val_ratio`` and ``seed``.

    Args:
        corpus: the corpus the graph was built from (its ``texts``).
        graph: the :class:`TextGraph` (labels, label names, tokenizer name, the split).
        tokenizer: the graph's tokenizer (recorded, see :func:`fit_baseline`).
        val_ratio, seed: the graph model's validation split and seed.
        class_weight: see :func:`fit_baseline`.
    """
    idx = graph_split(graph, val_ratio, seed)
    return fit_baseline(corpus.texts, graph.labels, graph.label_names, idx["train"], idx["val"],
                        idx["test"], tokenizer, graph.tokenizer, seed,
                        class_weight=class_weight)

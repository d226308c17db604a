"""The TF-IDF + logistic regression baseline printed beside every own-corpus result.

Features: the run's tokenizer (no stop-word or rare-word removal: the regulariser handles
those), vocabulary of the fitting documents, sublinear TF ``1 + log(tf)`` times the smoothed IDF
``log((1 + n) / (1 + df)) + 1``, rows L2-normalised (scikit-learn's ``TfidfVectorizer`` with
``sublinear_tf=True``; computed here with the package's own vectorised counting so that a saved
model needs no pickle).  Classifier: scikit-learn's multinomial ``LogisticRegression`` (lbfgs),
fitted on the graph model's *training* documents only; its inverse regularisation ``C`` is
chosen on the same validation documents, by accuracy (ties: lower log-loss).  Test documents are
never looked at until the chosen model is evaluated.

The fitted model is a vocabulary, an IDF vector, a coefficient matrix and an intercept:
:meth:`LinearTextModel.to_tensors` / :meth:`from_tensors` store them as safetensors + JSON.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from gfbgcn.core.metrics import classification_metrics
from gfbgcn.text.tokenize.preprocess import Tokenizer, preprocess

#: Inverse regularisation strengths tried on the validation split.
C_GRID = (0.25, 1.0, 4.0, 16.0, 64.0)


def _counts(tc) -> sp.csr_matrix:
    from gfbgcn.text.predict.inductive import count_matrix

    return count_matrix(tc)


def tfidf_features(counts: sp.csr_matrix, idf: np.ndarray) -> sp.csr_matrix:
    """Sublinear TF times IDF, rows L2-normalised (all-zero rows stay zero)."""
    x = counts.tocsr(copy=True).astype(np.float64)
    x.data = 1.0 + np.log(x.data)
    x = x.multiply(idf[None, :]).tocsr()
    norms = np.sqrt(np.asarray(x.multiply(x).sum(axis=1)).ravel())
    scale = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
    return sp.diags(scale) @ x


def _softmax(logits: np.ndarray) -> np.ndarray:
    z = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


@dataclass
class LinearTextModel:
    """A fitted TF-IDF + logistic regression: everything :meth:`predict_proba` needs."""

    vocab: list[str]
    idf: np.ndarray  # float64 [V]
    coef: np.ndarray  # float64 [C, V] (binary problems: the two rows of +-w/2, see fit)
    intercept: np.ndarray  # float64 [C]
    label_names: list[str]
    tokenizer_name: str
    C: float
    tokenizer: Tokenizer | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self._index = pd.Index(self.vocab)

    def features(self, texts: Sequence[str]) -> sp.csr_matrix:
        if self.tokenizer is None:
            from gfbgcn.text.predict.inductive import resolve_tokenizer

            self.tokenizer = resolve_tokenizer(self.tokenizer_name)
        tc = preprocess(list(texts), self.tokenizer, vocab=self.vocab, vocab_index=self._index,
                        stop_words=None)
        return tfidf_features(_counts(tc), self.idf)

    def predict_proba(self, texts: Sequence[str] | str) -> np.ndarray:
        if isinstance(texts, str):
            texts = [texts]
        x = self.features(texts)
        return _softmax(np.asarray(x @ self.coef.T) + self.intercept[None, :])

    def to_tensors(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """``(arrays, JSON metadata)`` for safetensors + JSON (no pickle)."""
        arrays = {"idf": self.idf, "coef": self.coef, "intercept": self.intercept}
        meta = {"vocab": self.vocab, "label_names": self.label_names,
                "tokenizer": self.tokenizer_name, "C": self.C}
        return arrays, meta

    @classmethod
    def from_tensors(cls, arrays: dict[str, np.ndarray], meta: dict[str, Any],
                     tokenizer: Tokenizer | None = None) -> LinearTextModel:
        return cls(vocab=list(meta["vocab"]), idf=np.asarray(arrays["idf"], np.float64),
                   coef=np.asarray(arrays["coef"], np.float64),
                   intercept=np.asarray(arrays["intercept"], np.float64),
                   label_names=list(meta["label_names"]), tokenizer_name=meta["tokenizer"],
                   C=float(meta["C"]), tokenizer=tokenizer)


@dataclass
class BaselineResult:
    model: LinearTextModel
    test: dict[str, Any]
    val: dict[str, Any]
    probabilities: np.ndarray  # [num_docs, C] for every document of the corpus
    val_by_C: dict[float, float]
    seconds: float


def _log_loss(y: np.ndarray, probs: np.ndarray) -> float:
    return float(-np.mean(np.log(np.clip(probs[np.arange(len(y)), y], 1e-12, None))))


def _fit_one(x: sp.csr_matrix, y: np.ndarray, num_classes: int, C: float, seed: int
             ) -> tuple[np.ndarray, np.ndarray]:
    """``(coef [C, V], intercept [C])`` of a multinomial logistic regression."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import LogisticRegression

    classes = np.unique(y)
    coef = np.zeros((num_classes, x.shape[1]))
    intercept = np.full(num_classes, -30.0)  # classes absent from training: never predicted
    if len(classes) == 1:
        intercept[classes[0]] = 0.0
        return coef, intercept
    clf = LogisticRegression(C=C, max_iter=1000, random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(x, y)
    w, b = clf.coef_, clf.intercept_
    if len(classes) == 2:  # scikit-learn stores one row; softmax of (-w/2, w/2) = sigmoid(w)
        w, b = np.vstack([-w / 2, w / 2]), np.array([-b[0] / 2, b[0] / 2])
    coef[classes], intercept[classes] = w, b
    return coef, intercept


def fit_baseline(texts: Sequence[str], labels: np.ndarray, label_names: Sequence[str],
                 train_idx: np.ndarray, val_idx: np.ndarray, test_idx: np.ndarray,
                 tokenizer: Tokenizer, tokenizer_name: str, seed: int = 0) -> BaselineResult:
    """Fit on ``train_idx``, choose ``C`` on ``val_idx``, evaluate on ``test_idx``."""
    start = time.perf_counter()
    num_classes = len(label_names)
    labels = np.asarray(labels)
    train_tc = preprocess([texts[i] for i in train_idx], tokenizer, min_freq=1, stop_words=None)
    vocab = train_tc.vocab
    df = np.bincount(_counts(train_tc).indices, minlength=len(vocab))
    idf = np.log((1.0 + len(train_idx)) / (1.0 + df)) + 1.0
    model = LinearTextModel(vocab, idf, np.zeros((num_classes, len(vocab))),
                            np.zeros(num_classes), list(label_names), tokenizer_name, 1.0,
                            tokenizer)
    x_all = model.features(texts)
    y_train, y_val = labels[train_idx], labels[val_idx]
    best: tuple | None = None
    val_by_C: dict[float, float] = {}
    for C in C_GRID:
        coef, intercept = _fit_one(x_all[train_idx], y_train, num_classes, C, seed)
        probs = _softmax(np.asarray(x_all[val_idx] @ coef.T) + intercept)
        acc = float((probs.argmax(1) == y_val).mean()) if len(val_idx) else 0.0
        val_by_C[C] = acc
        score = (acc, -_log_loss(y_val, probs) if len(val_idx) else 0.0)
        if best is None or score > best[0]:
            best = (score, C, coef, intercept)
    assert best is not None
    _, model.C, model.coef, model.intercept = best
    probs = _softmax(np.asarray(x_all @ model.coef.T) + model.intercept)
    pred = probs.argmax(1)
    return BaselineResult(
        model=model,
        test=classification_metrics(labels[test_idx], pred[test_idx], num_classes),
        val=classification_metrics(y_val, pred[val_idx], num_classes),
        probabilities=probs,
        val_by_C=val_by_C,
        seconds=time.perf_counter() - start,
    )


def baseline_for_graph(corpus, graph, tokenizer: Tokenizer, val_ratio: float, seed: int
                       ) -> BaselineResult:
    """The baseline on the same train/validation/test documents as a graph model trained on
    ``graph`` with ``val_ratio`` and ``seed`` (see :meth:`TextGraph.to_data`)."""
    data = graph.to_data(val_ratio, seed)
    d = graph.num_docs
    idx = {name: getattr(data, f"{name}_mask")[:d].nonzero().view(-1).numpy()
           for name in ("train", "val", "test")}
    return fit_baseline(corpus.texts, graph.labels, graph.label_names, idx["train"], idx["val"],
                        idx["test"], tokenizer, graph.tokenizer, seed)

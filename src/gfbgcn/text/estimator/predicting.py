"""The predicting side of :class:`gfbgcn.TextGCNClassifier`: the documents given to ``fit``
by the graph's own outputs (:mod:`gfbgcn.text.estimator.transductive`), any other document by
the inductive predictor (:mod:`gfbgcn.text.predict.inductive`), and the class or label set of
each."""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.utils.validation import check_is_fitted

from gfbgcn.core.errors import UserError
from gfbgcn.text.corpus.corpus import check_documents
from gfbgcn.text.estimator.transductive import Transductive, warn_if_all_inductive
from gfbgcn.text.train.models import INDUCTIVE_MODELS


class FittedPrediction:
    """``predict_proba``, ``predict`` and ``predictor_`` of a fitted classifier, from the state
    its ``fit`` (or ``load``) sets: ``classes_`` and their columns among the model's labels,
    the transductive outputs, the inductive predictor (None for sgc and gin), the multi-label
    threshold (None: single-label) and how many ``X_unlabeled`` documents ``fit`` had."""

    classes_: np.ndarray
    _columns: np.ndarray
    _outputs: Transductive
    _predictor: Any
    _model_name: str
    _threshold: float | None
    _num_unlabeled: int


    def predict_proba(self, X: Any) -> np.ndarray:
        """``[n, C]`` class probabilities of the documents ``X``, columns in ``classes_``
        order: transductive for the documents given to ``fit``, inductive for others."""
        check_is_fitted(self, "classes_")
        docs = check_documents(X, "X")
        outputs = self._outputs
        rows = outputs.rows(docs)
        warn_if_all_inductive(rows, self._num_unlabeled)
        proba = np.empty((len(docs), outputs.probabilities.shape[1]), dtype=np.float64)
        seen = rows >= 0
        proba[seen] = outputs.probabilities[rows[seen]]
        new = np.flatnonzero(~seen)
        if len(new):
            proba[new] = self.predictor_.predict_proba([docs[i] for i in new])
        if not self._threshold:  # multi-label: independent sigmoid outputs
            # the model's float32 softmax misses 1 by up to ~1e-7, which log_loss warns
            # about: renormalised in float64, each row sums to 1 within a few float64 eps
            proba /= proba.sum(axis=1, keepdims=True)
        return proba[:, self._columns]

    def predict(self, X: Any) -> np.ndarray:
        """``[n]`` the most probable class of each document of ``X`` (see
        :meth:`predict_proba`); multi-label: ``[n, L]`` 0/1, the labels at or above the
        threshold chosen on validation."""
        proba = self.predict_proba(X)  # first: it says when the classifier is not fitted
        if self._threshold:
            return (proba >= self._threshold).astype(np.int64)
        return self.classes_[np.argmax(proba, axis=1)]

    @property
    def predictor_(self) -> Any:
        """The inductive predictor of documents not given to ``fit``: an
        :class:`~gfbgcn.text.predict.inductive.InductiveTextGCN` (or, chosen by ``auto``, a
        :class:`~gfbgcn.text.predict.combined.CombinedPredictor`); a
        :class:`~gfbgcn.core.errors.UserError` for sgc and gin, which have none."""
        check_is_fitted(self, "classes_")
        if self._predictor is None:
            raise UserError(f"{self._model_name} classifies only the documents given to fit "
                            f"(X or X_unlabeled): new documents need a two-layer model "
                            f"({', '.join(INDUCTIVE_MODELS)})")
        return self._predictor

"""The unigram TF-IDF + logistic-regression baseline of the reports before 2026-11-26, kept as a
named option for comparisons with them (:mod:`gfbgcn.text.predict.baseline` is the one every
report, note and combination uses now).
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp
from scipy.special import softmax

from gfbgcn.core.metrics import classification_metrics, mean_log_loss
from gfbgcn.text.graph.counts import doc_word_counts
from gfbgcn.text.predict.baseline import BaselineResult, LinearTextModel
from gfbgcn.text.predict.linear_grid import GridPoint, fit_point, linear_scores
from gfbgcn.text.predict.ngrams import smoothed_idf
from gfbgcn.text.tokenize.clean import Tokenizer
from gfbgcn.text.tokenize.preprocess import preprocess

#: Inverse regularisation strengths of the unigram baseline (:func:`fit_unigram_baseline`).
C_GRID = (0.25, 1.0, 4.0, 16.0, 64.0)


def _fit_unigram(x: sp.csr_matrix, y: np.ndarray, num_classes: int, C: float, seed: int
                 ) -> tuple[np.ndarray, np.ndarray]:
    return fit_point(x, y, num_classes, GridPoint("lr-unigram", "C", C), seed, None)


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
        probs = softmax(linear_scores(x_all[val_idx], coef, intercept), axis=1)
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

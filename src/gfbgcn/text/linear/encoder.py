"""Linear models over a frozen sentence encoder's document embeddings.

Two of ``--auto``'s candidates when it is given an encoder (``--encoder``), fitted on the same
train/validation/test documents as the graph model, like the built-in n-gram baseline
(:mod:`gfbgcn.text.linear.baseline`):

* **the encoder head** (:func:`fit_encoder_head`): logistic regression on the embeddings alone
  (unit rows), its ``C`` chosen on the validation documents from :data:`HEAD_C`;
* **the n-gram baseline with the embeddings beside its TF-IDF** (:func:`fit_ngram_encoder`):
  one linear SVM over ``[TF-IDF | s * embedding]``, the word and character blocks and the
  embedding each of unit length before ``s``; ``C`` (:data:`~gfbgcn.text.linear.grid.SVM_C`)
  and the embeddings' weight ``s`` (:data:`EMBEDDING_SCALES`) chosen together on validation.
  An SVM rather than the baseline's whole grid: SGD gained nothing over it on the n-grams
  alone within seed noise (``docs/results/vs-linear.md``), complement naive Bayes cannot take
  the embeddings' negative values, and each point more is a fit of the widest matrix.

Both are then refitted on the whole training split and calibrated by a temperature, exactly as
the n-gram baseline (:func:`~gfbgcn.text.linear.baseline.choose_and_refit`), and are
:class:`~gfbgcn.text.linear.baseline.LinearTextModel` s: a saved one embeds new documents with
the model directory's encoder.

The embeddings come in as an array, one row per document of the corpus (the encoder and its
cache are :mod:`gfbgcn.text.encoder`'s); nothing here loads or runs a model.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from gfbgcn.text.corpus.weights import ClassWeight, folded_weights
from gfbgcn.text.linear.baseline import (
    BaselineResult,
    LinearTextModel,
    choose_and_refit,
    scored,
    stack_features,
)
from gfbgcn.text.linear.grid import SVM_C, GridPoint

#: ``C`` of the encoder head's logistic regression, tried on validation.
HEAD_C = (0.3, 1.0, 3.0, 10.0, 30.0)
#: The weight of the unit-length embedding beside the two unit-length TF-IDF blocks, tried on
#: validation with every ``C``: below, at and above an equal share.
EMBEDDING_SCALES = (0.5, 1.0, 2.0)


def head_grid() -> list[GridPoint]:
    """The encoder head's grid: logistic regression at each ``C`` of :data:`HEAD_C`."""
    return [GridPoint("lr", "C", c) for c in HEAD_C]


def stacked_grid() -> list[GridPoint]:
    """The stacked model's grid: a linear SVM at each ``C`` of
    :data:`~gfbgcn.text.linear.grid.SVM_C` and each scale of :data:`EMBEDDING_SCALES`."""
    return [GridPoint("svm", "C", c, scale) for scale in EMBEDDING_SCALES for c in SVM_C]


def _check_embeddings(embeddings: np.ndarray, num_docs: int) -> np.ndarray:
    embeddings = np.asarray(embeddings)
    if embeddings.ndim != 2 or embeddings.shape[0] != num_docs:
        raise ValueError(f"embeddings of shape {embeddings.shape}: expected one row for each "
                         f"of the {num_docs} documents")
    if not np.isfinite(embeddings).all():
        raise ValueError("embeddings hold non-finite values")
    return embeddings


def fit_encoder_head(embeddings: np.ndarray, labels: np.ndarray, label_names: Sequence[str],
                     train_idx: np.ndarray, val_idx: np.ndarray, test_idx: np.ndarray,
                     tokenizer_name: str = "unicode", seed: int = 0, *,
                     class_weight: ClassWeight = None,
                     sample_weight: np.ndarray | None = None) -> BaselineResult:
    """The encoder head: logistic regression on ``embeddings``, ``C`` chosen on ``val_idx``
    (fitted on ``train_idx``), refitted on both, evaluated on ``test_idx``.

    Args:
        embeddings: ``[num_docs, d]`` every document's embedding, in corpus order.
        labels: ``[num_docs]`` class indices (those of test documents are read only to score).
        label_names: the class names, in index order.
        train_idx, val_idx, test_idx: the graph model's document splits.
        tokenizer_name, seed, class_weight, sample_weight: as
            :func:`~gfbgcn.text.linear.baseline.fit_baseline`.
    """
    start, labels = time.perf_counter(), np.asarray(labels)
    embeddings = _check_embeddings(embeddings, len(labels))
    fit_idx = np.concatenate([train_idx, val_idx])
    x_fit = stack_features(None, embeddings[fit_idx], 1.0)
    named, weights = folded_weights(labels, label_names, class_weight, sample_weight)
    chosen = choose_and_refit(lambda point: x_fit, labels[fit_idx], len(train_idx), head_grid(),
                              len(label_names), seed, named,
                              None if weights is None else weights[fit_idx])
    model = LinearTextModel(
        ngrams=None, coef=chosen.coef, intercept=chosen.intercept,
        label_names=list(label_names), tokenizer_name=tokenizer_name,
        C=float(chosen.point.value), kind=chosen.point.kind, params=chosen.point.params,
        temperature=chosen.temperature, encoder_scale=1.0)
    probs = model.proba_of(stack_features(None, embeddings, 1.0))
    return scored(model, labels, probs, val_idx, test_idx, chosen, start, class_weight)


def fit_ngram_encoder(baseline: BaselineResult, embeddings: np.ndarray, labels: np.ndarray,
                      train_idx: np.ndarray, val_idx: np.ndarray, test_idx: np.ndarray,
                      seed: int = 0, *, class_weight: ClassWeight = None,
                      sample_weight: np.ndarray | None = None) -> BaselineResult:
    """The n-gram baseline's TF-IDF with the embeddings beside it, in one linear SVM whose
    ``C`` and embedding scale are chosen on ``val_idx`` (fitted on ``train_idx``), refitted on
    both, evaluated on ``test_idx``.

    Args:
        baseline: the fitted n-gram baseline of the same splits, fitted with
            ``keep_features=True`` (its vocabulary, IDF and every document's TF-IDF row are
            reused, not counted again).
        embeddings: ``[num_docs, d]`` every document's embedding, in corpus order.
        labels, train_idx, val_idx, test_idx, seed, class_weight, sample_weight: as
            :func:`fit_encoder_head`.
    """
    start, labels = time.perf_counter(), np.asarray(labels)
    tfidf, ngrams = baseline.features, baseline.model.ngrams
    if tfidf is None or ngrams is None:
        raise ValueError("fit the n-gram baseline with keep_features=True first")
    embeddings = _check_embeddings(embeddings, tfidf.shape[0])
    fit_idx = np.concatenate([train_idx, val_idx])
    tfidf_fit, embeddings_fit = tfidf[fit_idx], embeddings[fit_idx]
    label_names = baseline.model.label_names
    named, weights = folded_weights(labels, label_names, class_weight, sample_weight)
    chosen = choose_and_refit(
        lambda point: stack_features(tfidf_fit, embeddings_fit, point.scale), labels[fit_idx],
        len(train_idx), stacked_grid(), len(label_names), seed, named,
        None if weights is None else weights[fit_idx])
    scale = chosen.point.scale
    model = LinearTextModel(
        ngrams=ngrams, coef=chosen.coef, intercept=chosen.intercept,
        label_names=list(label_names), tokenizer_name=baseline.model.tokenizer_name,
        C=float(chosen.point.value), kind=chosen.point.kind, params=chosen.point.params,
        temperature=chosen.temperature, encoder_scale=scale)
    probs = model.proba_of(stack_features(tfidf, embeddings, scale))
    return scored(model, labels, probs, val_idx, test_idx, chosen, start, class_weight)

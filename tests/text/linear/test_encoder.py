"""Linear models over encoder embeddings: the encoder head (logistic regression, C chosen on
validation) and the n-gram baseline with the embeddings beside its TF-IDF (one SVM, C and the
embeddings' scale chosen together), both refitted on the whole training split, calibrated,
and saved without the encoder itself."""

from __future__ import annotations

import json

import numpy as np
import pytest
import scipy.sparse as sp

from gfbgcn.text.linear.baseline import LinearTextModel, fit_baseline, stack_features
from gfbgcn.text.linear.encoder import (
    EMBEDDING_SCALES,
    HEAD_C,
    fit_encoder_head,
    fit_ngram_encoder,
    stacked_grid,
)
from gfbgcn.text.linear.grid import SVM_C
from tests.text.search.test_own_corpus import tiny_corpus

TRAIN, VAL, TEST = np.arange(50), np.arange(50, 60), np.arange(60, 80)


def _embeddings(y: np.ndarray, signal: float, dim: int = 16, seed: int = 0) -> np.ndarray:
    """Unit rows: noise plus ``signal`` along a direction of each class."""
    rng = np.random.default_rng(seed)
    rows = rng.normal(size=(len(y), dim))
    rows[:, 0] += signal * (2 * y - 1)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def _corpus_and_labels():
    corpus = tiny_corpus(80, noise=0.5)
    y = np.array([corpus.label_names.index(lab) for lab in corpus.labels])
    return corpus, y


def test_the_encoder_head_is_logistic_regression_of_the_c_chosen_on_validation():
    from sklearn.linear_model import LogisticRegression

    corpus, y = _corpus_and_labels()
    emb = _embeddings(y, signal=1.5)
    head = fit_encoder_head(emb, y, corpus.label_names, TRAIN, VAL, TEST, seed=0)
    assert [r["C"] for r in head.grid] == list(HEAD_C)
    best = max(head.grid, key=lambda r: (r["val_accuracy"], -r["val_log_loss"]))
    assert head.model.C == best["C"] and head.val["accuracy"] == best["val_accuracy"]
    assert head.model.ngrams is None and head.model.encoder_scale == 1.0
    # refitted on training + validation documents: liblinear's LR of that C, its scores
    # divided by the temperature chosen on validation
    ref = LogisticRegression(C=head.model.C, solver="liblinear", random_state=0)
    ref.fit(emb[:60], y[:60])
    p = head.probabilities
    assert np.allclose(np.log(p[:, 1] / p[:, 0]) * head.model.temperature,
                       ref.decision_function(emb), atol=1e-6)
    assert head.test["accuracy"] >= 0.8  # the embeddings carry the class


def test_the_stacked_model_chooses_c_and_scale_together_on_validation():
    from sklearn.svm import LinearSVC

    corpus, y = _corpus_and_labels()
    emb = _embeddings(y, signal=1.0)
    base = fit_baseline(corpus.texts, y, corpus.label_names, TRAIN, VAL, TEST, seed=0,
                        keep_features=True)
    assert base.features is not None and base.features.shape[0] == len(y)
    assert np.allclose(base.features.toarray(), base.model.features(corpus.texts).toarray())
    both = fit_ngram_encoder(base, emb, y, TRAIN, VAL, TEST, seed=0)
    assert [(r["C"], r["scale"]) for r in both.grid] == [
        (c, s) for s in EMBEDDING_SCALES for c in SVM_C]
    best = max(both.grid, key=lambda r: (r["val_accuracy"], -r["val_log_loss"]))
    assert (both.model.C, both.model.encoder_scale) == (best["C"], best["scale"])
    # one SVM over [TF-IDF | s * embedding], refitted on the whole training split
    x = sp.hstack([base.features, sp.csr_matrix(emb * both.model.encoder_scale)]).tocsr()
    ref = LinearSVC(C=both.model.C, random_state=0).fit(x[:60], y[:60])
    assert (ref.predict(x) == both.probabilities.argmax(1)).all()
    assert len(stacked_grid()) == len(SVM_C) * len(EMBEDDING_SCALES)


def test_a_saved_encoder_model_embeds_new_texts_with_the_encoder_it_is_given():
    corpus, y = _corpus_and_labels()
    emb = _embeddings(y, signal=1.0)
    lookup = {t: e for t, e in zip(corpus.texts, emb)}
    base = fit_baseline(corpus.texts, y, corpus.label_names, TRAIN, VAL, TEST, seed=0,
                        keep_features=True)
    for fitted in (fit_encoder_head(emb, y, corpus.label_names, TRAIN, VAL, TEST),
                   fit_ngram_encoder(base, emb, y, TRAIN, VAL, TEST)):
        arrays, meta = fitted.model.to_tensors()
        assert meta["encoder"] == {"scale": fitted.model.encoder_scale}
        again = LinearTextModel.from_tensors(arrays, json.loads(json.dumps(meta)))
        with pytest.raises(ValueError, match="uses an encoder's embeddings"):
            again.predict_proba(corpus.texts[:2])
        again.embed = lambda texts: np.stack([lookup[t] for t in texts])
        assert np.allclose(again.predict_proba(corpus.texts), fitted.probabilities)


def test_test_labels_are_never_read_for_a_choice():
    corpus, y = _corpus_and_labels()
    emb = _embeddings(y, signal=1.0)
    flipped = y.copy()
    flipped[TEST] = 1 - flipped[TEST]
    base = fit_baseline(corpus.texts, y, corpus.label_names, TRAIN, VAL, TEST, keep_features=True)
    for fit in (lambda labels: fit_encoder_head(emb, labels, corpus.label_names, TRAIN, VAL,
                                                TEST),
                lambda labels: fit_ngram_encoder(base, emb, labels, TRAIN, VAL, TEST)):
        a, b = fit(y), fit(flipped)
        assert a.grid == b.grid and np.array_equal(a.probabilities, b.probabilities)
        assert a.test["accuracy"] + b.test["accuracy"] == pytest.approx(1.0)


def test_embeddings_must_match_the_documents():
    corpus, y = _corpus_and_labels()
    with pytest.raises(ValueError, match="one row for each of the 80 documents"):
        fit_encoder_head(np.zeros((79, 4)), y, corpus.label_names, TRAIN, VAL, TEST)
    bad = _embeddings(y, 1.0)
    bad[3, 2] = np.nan
    with pytest.raises(ValueError, match="non-finite"):
        fit_encoder_head(bad, y, corpus.label_names, TRAIN, VAL, TEST)
    base = fit_baseline(corpus.texts, y, corpus.label_names, TRAIN, VAL, TEST)
    with pytest.raises(ValueError, match="keep_features=True"):
        fit_ngram_encoder(base, _embeddings(y, 1.0), y, TRAIN, VAL, TEST)


def test_stacked_features_put_the_scaled_embeddings_after_the_n_grams():
    tfidf = sp.csr_matrix(np.array([[0.6, 0.8, 0.0], [0.0, 0.0, 1.0]]))
    emb = np.array([[1.0, 0.0], [0.0, -1.0]])
    assert np.array_equal(stack_features(tfidf, emb, 2.0).toarray(),
                          [[0.6, 0.8, 0.0, 2.0, 0.0], [0.0, 0.0, 1.0, 0.0, -2.0]])
    assert np.array_equal(stack_features(None, emb, 0.5).toarray(), emb * 0.5)

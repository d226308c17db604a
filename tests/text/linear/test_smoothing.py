"""The cross-fitted choice of smoothing a linear model over the documents' graph: every
training document scored once by a fold that did not see its label, test labels never read,
kept where the graph knows what the linear model cannot (classes in an XOR of clusters), not
kept where there is nothing to gain, and a smoothed model that answers new documents the same
after saving."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pytest
from scipy.special import softmax

from gfbgcn.text.linear.baseline import LinearTextModel, stack_features
from gfbgcn.text.linear.doc_graph import DocumentVectors, knn_adjacency
from gfbgcn.text.linear.encoder import fit_encoder_head
from gfbgcn.text.linear.grid import fit_point, linear_scores
from gfbgcn.text.linear.smoothing import (
    ALPHAS,
    FOLDS,
    MIN_DOCUMENTS,
    Z,
    choose_smoothing,
    cross_fit,
    fold_probabilities,
    folds_of,
    held_out_correct,
    smooth_linear,
    why_not,
)

N = 200


def _xor_corpus(seed: int = 0, spread: float = 0.15):
    """Four tight clusters of embeddings; the class is the XOR of the two cluster signs, which
    no linear model of the embeddings separates but every document's neighbours know."""
    rng = np.random.default_rng(seed)
    a, b = rng.integers(0, 2, N), rng.integers(0, 2, N)
    centres = np.array([[1.0, 1.0], [1.0, -1.0], [-1.0, 1.0], [-1.0, -1.0]])
    emb = np.hstack([centres[2 * a + b], np.ones((N, 1))]) + spread * rng.normal(size=(N, 3))
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    y = a ^ b
    order = rng.permutation(N)
    split = {"train": order[:120], "val": order[120:150], "test": order[150:]}
    return emb, y, split


def _head(emb, y, split):
    return fit_encoder_head(emb, y, ["a", "b"], split["train"], split["val"], split["test"],
                            seed=0)


def _smooth(head, emb, y, split):
    """The choice for the encoder head ``head`` of embeddings ``emb``, cross-fitted first."""
    x = stack_features(None, emb, 1.0)
    return smooth_linear(head, x, y, split, cross_fit(head, x, y, split, seed=0, threads=1))


def test_every_training_document_is_scored_once_by_a_fold_that_did_not_see_it():
    emb, y, split = _xor_corpus()
    fit_idx = np.concatenate([split["train"], split["val"]])
    folds = folds_of(fit_idx, y, seed=0)
    assert len(folds) == FOLDS
    held = np.concatenate([h for _, h in folds])
    assert np.array_equal(np.sort(held), np.sort(fit_idx))
    for known, h in folds:
        assert not np.intersect1d(known, h).size and not np.intersect1d(known, split["test"]).size
    head = _head(emb, y, split)
    x = stack_features(None, emb, 1.0)
    probs = fold_probabilities(x, y, folds, head.model.grid_point, 2, 0,
                               head.model.temperature, None, None, threads=1)
    known = folds[0][0]
    coef, intercept = fit_point(x[known], y[known], 2, head.model.grid_point, 0, None)
    assert np.allclose(probs[0], softmax(linear_scores(x, coef, intercept)
                                         / head.model.temperature, axis=1))


def test_smoothing_is_kept_where_the_neighbours_know_what_the_linear_model_cannot():
    emb, y, split = _xor_corpus()
    head = _head(emb, y, split)
    assert head.test["accuracy"] < 0.75  # XOR: no linear model of the embeddings
    choice, smoothed = _smooth(head, emb, y, split)
    assert choice.kept and smoothed is not None and choice.graph == "encoder"
    assert choice.better - choice.worse > Z * np.sqrt(choice.better + choice.worse)
    assert len(choice.grid) == len(ALPHAS) and choice.alpha in ALPHAS
    assert smoothed.test["accuracy"] > 0.9 > head.test["accuracy"]
    # a copy: the linear model as it was is untouched
    assert head.model.smoothing is None and smoothed.model.smoothing is not None
    assert np.allclose(smoothed.probabilities.sum(1), 1.0)
    # the validation documents scored by their held-out fold's smoothed probabilities
    assert smoothed.val_probabilities.shape == (len(split["val"]), 2)
    assert smoothed.val["accuracy"] == pytest.approx(
        float((smoothed.val_probabilities.argmax(1) == y[split["val"]]).mean()))
    assert smoothed.model.description.endswith(f"smoothed over encoder (k=10, "
                                               f"alpha={choice.alpha:g})")


def test_the_choice_never_reads_a_test_label():
    emb, y, split = _xor_corpus()
    flipped = y.copy()
    flipped[split["test"]] = 1 - flipped[split["test"]]
    a, sa = _smooth(_head(emb, y, split), emb, y, split)
    b, sb = _smooth(_head(emb, flipped, split), emb, flipped, split)
    assert (a.graph, a.alpha, a.better, a.worse, a.kept) == (b.graph, b.alpha, b.better,
                                                             b.worse, b.kept)
    assert sa is not None and sb is not None
    assert np.array_equal(sa.probabilities, sb.probabilities)


def test_nothing_to_gain_is_not_kept():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, N)
    emb = rng.normal(size=(N, 4))
    emb[:, 0] = 3 * (2 * y - 1)  # linearly separable: the model is right everywhere
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    _, _, split = _xor_corpus()
    head = _head(emb, y, split)
    choice, smoothed = _smooth(head, emb, y, split)
    assert choice.base_accuracy == 1.0 and not choice.kept and smoothed is None
    assert "not kept" in choice.sentence()


def test_the_best_configuration_is_the_one_with_the_most_documents_right():
    emb, y, split = _xor_corpus()
    head = _head(emb, y, split)
    x = stack_features(None, emb, 1.0)
    fit_idx = np.concatenate([split["train"], split["val"]])
    folds = folds_of(fit_idx, y, 0)
    probs = fold_probabilities(x, y, folds, head.model.grid_point, 2, 0,
                               head.model.temperature, None, None, threads=1)
    graphs = {"encoder": knn_adjacency(DocumentVectors(embeddings=emb), "encoder", 10)}
    choice = choose_smoothing(graphs, probs, folds, y)
    best = max(choice.grid, key=lambda r: r["cv_accuracy"])  # max: the first of equals
    assert (choice.graph, choice.alpha) == (best["graph"], best["alpha"])
    _, right = held_out_correct(graphs["encoder"], probs, folds, y, choice.alpha)
    assert choice.accuracy == pytest.approx(right.mean())


def test_too_few_documents_and_multi_label_models_are_not_cross_fitted():
    emb, y, split = _xor_corpus()
    head = _head(emb, y, split)
    assert why_not(head, N, 150) == ""
    assert str(MIN_DOCUMENTS) in why_not(head, N, 40)
    assert "above" in why_not(head, 10 ** 6, 150)
    head.threshold = 0.5  # as a multi-label model has
    assert why_not(head, N, 150) == "a multi-label model"


def test_the_held_out_scores_are_of_every_training_document():
    emb, y, split = _xor_corpus()
    head = _head(emb, y, split)
    fitted = cross_fit(head, stack_features(None, emb, 1.0), y, split, seed=0, threads=1)
    docs, p = fitted.held_out()
    assert np.array_equal(np.sort(docs), np.sort(np.concatenate([split["train"], split["val"]])))
    scores = fitted.scores(y)
    assert scores["cv_accuracy"] == pytest.approx(float((p.argmax(1) == y[docs]).mean()))
    assert scores["cv_log_loss"] == pytest.approx(
        float(-np.log(p[np.arange(len(docs)), y[docs]]).mean()))


def test_a_smoothed_model_answers_new_documents_the_same_after_saving():
    from safetensors.numpy import load_file, save_file

    emb, y, split = _xor_corpus()
    texts = [f"document {i}" for i in range(N)]
    lookup = dict(zip(texts, emb))
    head = _head(emb, y, split)
    _, smoothed = _smooth(head, emb, y, split)
    assert smoothed is not None
    model = smoothed.model
    model.embed = lambda batch: np.stack([lookup[t] for t in batch])
    arrays, meta = model.to_tensors()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "linear.safetensors"
        save_file({k: np.ascontiguousarray(v) for k, v in arrays.items()}, str(path))
        back = LinearTextModel.from_tensors(load_file(str(path)), meta)
    back.embed = model.embed
    new = [texts[i] for i in split["test"]]
    assert np.allclose(back.predict_proba(new), model.predict_proba(new), atol=1e-5)
    # the neighbours carry the answer: new documents are right as the graph's own were
    assert (model.predict_proba(new).argmax(1) == y[split["test"]]).mean() > 0.9

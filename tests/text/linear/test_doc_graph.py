"""The documents' graph and label spreading over it, checked against their definitions in
float64: the kNN graph by brute force, spreading against the closed form of its fixed point,
the out-of-sample answer as the fixed-point equation of one more node, and a smoothing that
survives saving."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp

from gfbgcn.text.linear.doc_graph import (
    DocumentVectors,
    Smoothing,
    extend,
    heaviest_terms,
    knn_adjacency,
    nearest,
    similarity,
    spread,
    unit_rows,
)


def _points(n: int = 30, d: int = 5, seed: int = 0) -> np.ndarray:
    return unit_rows(np.random.default_rng(seed).normal(size=(n, d)))


def _probabilities(n: int, c: int, seed: int = 1) -> np.ndarray:
    z = np.random.default_rng(seed).random((n, c)) + 0.05
    return z / z.sum(axis=1, keepdims=True)


def test_knn_adjacency_is_the_row_normalised_symmetric_graph_of_the_k_most_similar():
    x, k = _points(), 4
    p = knn_adjacency(DocumentVectors(embeddings=x), "encoder", k).toarray()
    sim = x @ x.T
    np.fill_diagonal(sim, -np.inf)
    a = np.zeros_like(sim)
    for i in range(len(x)):  # by brute force: each row's k largest similarities
        top = np.argsort(-sim[i])[:k]
        a[i, top] = np.maximum(sim[i, top], 0.0)
    a = np.maximum(a, a.T)
    expected = a / np.where(a.sum(1, keepdims=True) > 0, a.sum(1, keepdims=True), 1.0)
    assert np.allclose(p, expected, atol=1e-12)
    assert np.allclose(p.sum(axis=1)[a.sum(1) > 0], 1.0)  # row-stochastic
    assert np.all(np.diag(p) == 0)  # no document is its own neighbour


def test_a_duplicate_document_is_a_neighbour_but_no_row_is_its_own():
    x = np.vstack([_points(6), _points(1, seed=3)[[0, 0]]])  # rows 6 and 7 are equal
    v = DocumentVectors(embeddings=x)
    index, sim = nearest(v, v, "encoder", 3, exclude_self=True)
    assert index.shape == (8, 3)
    assert not np.any(index == np.arange(8)[:, None])
    assert index[6, 0] == 7 and index[7, 0] == 6 and np.isclose(sim[6, 0], 1.0)
    assert np.all(np.diff(sim, axis=1) <= 0)  # most similar first


def test_spread_reaches_the_fixed_point_of_its_equation():
    rng = np.random.default_rng(0)
    n, c, alpha = 25, 3, 0.6
    p = knn_adjacency(DocumentVectors(embeddings=_points(n)), "encoder", 5).toarray()
    z = _probabilities(n, c)
    known = np.array([0, 3, 7, 11])
    y = np.eye(c)[rng.integers(0, c, len(known))]
    g = spread(sp.csr_matrix(p), z, known, y, alpha, iterations=200)
    # closed form on the unknown documents u: G_u = (I - a P_uu)^-1 ((1-a) Z_u + a P_uk Y)
    u = np.setdiff1d(np.arange(n), known)
    closed = np.linalg.solve(np.eye(len(u)) - alpha * p[np.ix_(u, u)],
                             (1 - alpha) * z[u] + alpha * p[np.ix_(u, known)] @ y)
    assert np.allclose(g[u], closed, atol=1e-10)
    assert np.array_equal(g[known], y)  # clamped
    assert np.allclose(g.sum(axis=1), 1.0)  # still probabilities


def test_spread_with_alpha_zero_is_the_model_itself():
    z = _probabilities(10, 2)
    p = knn_adjacency(DocumentVectors(embeddings=_points(10)), "encoder", 3)
    g = spread(p, z, np.array([0]), np.eye(2)[[1]], 0.0)
    assert np.allclose(g[1:], z[1:])
    with pytest.raises(ValueError, match="alpha"):
        spread(p, z, np.array([0]), np.eye(2)[[1]], 1.0)


def test_a_new_document_gets_the_fixed_point_equation_of_one_more_node():
    x, c, alpha, k = _points(20), 2, 0.4, 5
    answers = _probabilities(20, c, seed=4)
    new = _points(3, seed=9)
    prior = _probabilities(3, c, seed=5)
    index, sim = nearest(DocumentVectors(embeddings=new), DocumentVectors(embeddings=x),
                         "encoder", k)
    got = extend(prior, index, sim, answers, alpha)
    for i in range(3):
        sim = x @ new[i]
        top = np.argsort(-sim)[:k]
        w = np.maximum(sim[top], 0.0)
        expected = (1 - alpha) * prior[i] + alpha * (w @ answers[top]) / w.sum()
        assert np.allclose(got[i], expected, atol=1e-12)
    # no positive similarity: the model's own answer
    far = extend(prior[:1], index[:1], -np.ones((1, k)), answers, alpha)
    assert np.allclose(far, prior[:1])


def test_heaviest_terms_keeps_the_largest_weights_of_each_row_at_unit_length():
    x = sp.csr_matrix(np.array([[0.1, 0.5, 0.0, 0.3, 0.2],
                                [0.0, 0.0, 0.7, 0.0, 0.0],
                                [0.0, 0.0, 0.0, 0.0, 0.0]]))
    kept = heaviest_terms(x, keep=2).toarray()
    first = np.array([0.0, 0.5, 0.0, 0.3, 0.0]) / math.hypot(0.5, 0.3)
    assert np.allclose(kept[0], first)
    assert np.allclose(kept[1], [0, 0, 1, 0, 0]) and not kept[2].any()


def test_the_graph_of_both_compares_by_the_mean_of_the_two_cosines():
    words = sp.csr_matrix(unit_rows(np.random.default_rng(0).random((6, 8))))
    emb = _points(6, 4)
    v = DocumentVectors(words, emb)
    expected = ((words @ words.T).toarray() + emb @ emb.T) / 2
    assert np.allclose(similarity(v, v, "both"), expected)
    assert DocumentVectors(words).graphs == ("words",)
    with pytest.raises(ValueError, match="lack"):
        similarity(DocumentVectors(words), DocumentVectors(words), "encoder")


def test_the_blocks_of_the_neighbour_search_change_nothing(monkeypatch):
    from gfbgcn.text.linear import doc_graph

    v = DocumentVectors(sp.csr_matrix(unit_rows(np.random.default_rng(2).random((40, 7)))),
                        _points(40, 3))
    whole = nearest(v, v, "both", 5, exclude_self=True)
    monkeypatch.setattr(doc_graph, "BLOCK_ENTRIES", 90)  # two query rows a block
    assert all(np.array_equal(a, b) for a, b in zip(whole, nearest(v, v, "both", 5, True)))


def test_a_smoothing_survives_its_tensors():
    words = heaviest_terms(sp.csr_matrix(np.random.default_rng(0).random((12, 9))))
    reference = DocumentVectors(words, _points(12, 4))
    smoothing = Smoothing("both", 0.3, 4, reference, _probabilities(12, 3))
    arrays, meta = smoothing.to_tensors()
    back = Smoothing.from_tensors(arrays, meta)
    new = DocumentVectors(heaviest_terms(sp.csr_matrix(np.random.default_rng(1).random((5, 9)))),
                          _points(5, 4, seed=2))
    prior = _probabilities(5, 3, seed=3)
    # float32 storage: the same answers to about 1e-6
    assert np.allclose(back.apply(prior, new), smoothing.apply(prior, new), atol=1e-5)
    assert back.description == "smoothed over both (k=4, alpha=0.3)"
    # a graph of words alone keeps no embeddings
    arrays, _ = Smoothing("words", 0.3, 4, reference, _probabilities(12, 3)).to_tensors()
    assert "smoothing.embeddings" not in arrays


def test_a_damaged_smoothing_is_refused_in_one_line():
    reference = DocumentVectors(heaviest_terms(sp.csr_matrix(np.eye(6, 8))))
    arrays, meta = Smoothing("words", 0.5, 2, reference, _probabilities(6, 2)).to_tensors()
    bad = dict(arrays, **{"smoothing.words.indices": arrays["smoothing.words.indices"] + 100})
    with pytest.raises(ValueError):
        Smoothing.from_tensors(bad, meta)
    with pytest.raises(ValueError, match="one finite row"):
        Smoothing.from_tensors(dict(arrays, **{"smoothing.answers": np.ones((5, 2))}), meta)
    with pytest.raises(ValueError, match="alpha"):
        Smoothing("words", 1.0, 2, reference, _probabilities(6, 2))

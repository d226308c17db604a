"""Edge arrays written straight from the blocks equal the reference bmat assembly."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

import gfbgcn.text.graph.edges as edges_module
from gfbgcn.text.graph.counts import ppmi_matrix
from gfbgcn.text.graph.edges import (
    bmat_edges,
    edges_from_upper,
    graph_edges,
    positive_pmi_upper,
    symmetric_from_upper,
)


def _random_upper(size: int, density: float, seed: int) -> sp.csr_matrix:
    upper = sp.triu(sp.random(size, size, density=density, random_state=seed), k=1).tocsr()
    upper.sum_duplicates()
    return upper


def test_symmetric_from_upper_equals_u_plus_u_transpose():
    for size, density in ((1, 0.5), (7, 0.0), (40, 0.2), (200, 0.05)):
        upper = _random_upper(size, density, seed=size)
        got = symmetric_from_upper(upper)
        expected = (upper + upper.T).tocsr()
        expected.sum_duplicates()
        assert got.has_canonical_format
        np.testing.assert_array_equal(got.indptr, expected.indptr)
        np.testing.assert_array_equal(got.indices, expected.indices)
        np.testing.assert_array_equal(got.data, expected.data)


def test_graph_edges_equal_the_bmat_assembly_in_order():
    rng = np.random.default_rng(1)
    tfidf = sp.random(30, 50, density=0.1, format="csr", random_state=rng)
    tfidf = sp.diags((np.arange(30) != 3).astype(float)) @ tfidf  # document 3 has no edge
    tfidf = tfidf.tocsr()
    tfidf.eliminate_zeros()
    tfidf.sort_indices()
    assert tfidf[3].nnz == 0 and tfidf.nnz > 0
    ppmi = symmetric_from_upper(_random_upper(50, 0.1, seed=2))
    got_index, got_weight = graph_edges(tfidf, ppmi)
    ref_index, ref_weight = bmat_edges(tfidf, ppmi)
    assert got_index.dtype == np.int64 and got_weight.dtype == np.float32
    np.testing.assert_array_equal(got_index, ref_index)  # same edges in the same order
    np.testing.assert_array_equal(got_weight, ref_weight)


def test_edges_from_upper_equal_bmat_of_the_symmetric_ppmi():
    rng = np.random.default_rng(3)
    tfidf = sp.random(25, 60, density=0.15, format="csr", random_state=rng)
    upper = _random_upper(60, 0.2, seed=4)
    upper.data = upper.data.astype(np.float32)
    ref_index, ref_weight = bmat_edges(tfidf, symmetric_from_upper(upper))
    for entries in (7, 1 << 22):  # many small row slices, and one
        edges_module.SLICE_ENTRIES = entries
        try:
            parts = [tfidf, upper]
            got_index, got_weight = edges_from_upper(parts)
            assert parts == []
        finally:
            edges_module.SLICE_ENTRIES = 1 << 22
        np.testing.assert_array_equal(got_index, ref_index)
        np.testing.assert_array_equal(got_weight, ref_weight)


def test_positive_pmi_upper_equals_the_reference_ppmi_rounded_to_float32():
    counts = _random_upper(80, 0.3, seed=5)
    counts.data = np.ceil(counts.data * 40)  # window counts
    singles = np.asarray((counts + counts.T).sum(axis=1)).ravel() + 3.0
    expected = ppmi_matrix(symmetric_from_upper(counts), singles, 200_000)
    got = positive_pmi_upper(counts.copy(), singles, 200_000)
    assert 0 < got.nnz < counts.nnz  # some pairs have a non-positive PMI and are dropped
    assert got.data.dtype == np.float32 and got.has_canonical_format
    np.testing.assert_array_equal(sp.triu(expected, k=1).tocsr().data.astype(np.float32), got.data)
    np.testing.assert_array_equal(sp.triu(expected, k=1).tocsr().indices, got.indices)

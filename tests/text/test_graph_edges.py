"""Edge arrays written straight from the blocks equal the reference bmat assembly."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from gfbgcn.text.graph_edges import bmat_edges, graph_edges, symmetric_from_upper


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

"""The graph's edge arrays straight from the TF-IDF and upper-triangular PPMI matrices.

The reference assembly (:func:`gfbgcn.text.graph.counts.assemble_adjacency`) symmetrises the
PPMI matrix with a sparse addition ``U + U^T`` and stacks the blocks with ``scipy.sparse.bmat``
into a COO matrix, then copies that into ``edge_index``.  Both steps are general-purpose merges
and copies over every edge.  Here the structure is known, so each edge array is written once:

* row ``r`` of ``U + U^T`` is column ``r`` of ``U`` (all columns ``< r``) followed by row ``r``
  of ``U`` (all ``> r``): no merge, two scatters, and in the build (:func:`edges_from_upper`)
  not even the symmetric matrix: ``U`` and ``U^T`` are scattered straight into the edge arrays;
* the positive PMI of ``U`` is computed in place (:func:`positive_pmi_upper`), a slice of rows
  at a time, and kept as the float32 the edge weights are anyway, so the build's transient
  memory is about two copies of ``U`` at 8 bytes an entry on top of the graph itself;
* the edges come out in ``bmat``'s order (block by block, row-major: document -> word in TF-IDF's
  CSR order, word -> document in the same order, word -> word in CSR order), so the graph is the
  reference's array for array (``tests/text/graph/test_edges.py``, and the sharded-build tests).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from gfbgcn.text.graph.counts import assemble_adjacency

__all__ = [
    "bmat_edges",
    "node_id_dtype",
    "edges_from_upper",
    "graph_edges",
    "positive_pmi_upper",
    "symmetric_from_upper",
]

#: entries per slice of the row-wise loops: bounds their temporaries (8-24 bytes an entry)
SLICE_ENTRIES = 1 << 22


def symmetric_from_upper(upper: sp.csr_matrix) -> sp.csr_matrix:
    """``U + U^T`` as a canonical CSR, for a canonical, strictly upper-triangular CSR ``U``."""
    size = upper.shape[0]
    lower = upper.tocsc()  # = U^T in CSR terms; a stable counting sort: indices stay sorted
    low_counts, up_counts = np.diff(lower.indptr), np.diff(upper.indptr)
    indptr = np.zeros(size + 1, dtype=np.int64)
    np.cumsum(low_counts + up_counts, out=indptr[1:])
    indices = np.empty(int(indptr[-1]), dtype=upper.indices.dtype)
    data = np.empty(int(indptr[-1]), dtype=upper.data.dtype)
    for part, offset in ((lower, indptr[:-1]), (upper, indptr[:-1] + low_counts)):
        where = np.arange(part.nnz, dtype=np.int64)
        where += np.repeat(offset - part.indptr[:-1], np.diff(part.indptr))
        indices[where] = part.indices
        data[where] = part.data
    return sp.csr_matrix((data, indices, indptr), shape=upper.shape)


def graph_edges(tfidf: sp.csr_matrix, ppmi: sp.csr_matrix) -> tuple[np.ndarray, np.ndarray]:
    """``(edge_index int64 [2, E], edge_weight float32 [E])`` of ``[[0, TFIDF], [TFIDF^T, PPMI]]``.

    ``tfidf`` [D, V] and the symmetric ``ppmi`` [V, V] are canonical CSR matrices; nodes are the
    D documents, then the V words.
    """
    num_docs, vocab_size = tfidf.shape
    doc_word, word_word = tfidf.nnz, ppmi.nnz
    edge_index = np.empty((2, 2 * doc_word + word_word), dtype=np.int64)
    edge_weight = np.empty(2 * doc_word + word_word, dtype=np.float32)
    src, dst = edge_index
    src[:doc_word] = np.repeat(np.arange(num_docs, dtype=np.int64), np.diff(tfidf.indptr))
    np.add(tfidf.indices, num_docs, out=dst[:doc_word], dtype=np.int64)
    src[doc_word : 2 * doc_word] = dst[:doc_word]
    dst[doc_word : 2 * doc_word] = src[:doc_word]
    edge_weight[:doc_word] = tfidf.data
    edge_weight[doc_word : 2 * doc_word] = edge_weight[:doc_word]
    words = np.arange(num_docs, num_docs + vocab_size, dtype=np.int64)
    src[2 * doc_word :] = np.repeat(words, np.diff(ppmi.indptr))
    np.add(ppmi.indices, num_docs, out=dst[2 * doc_word :], dtype=np.int64)
    edge_weight[2 * doc_word :] = ppmi.data
    return edge_index, edge_weight


def bmat_edges(tfidf: sp.csr_matrix, ppmi: sp.csr_matrix) -> tuple[np.ndarray, np.ndarray]:
    """:func:`graph_edges` the reference way, through ``scipy.sparse.bmat`` (the simple build)."""
    adj = assemble_adjacency(tfidf, ppmi)
    edge_index = np.empty((2, adj.nnz), dtype=np.int64)
    edge_index[0], edge_index[1] = adj.row, adj.col
    return edge_index, adj.data.astype(np.float32)


def _row_slices(indptr: np.ndarray) -> list[tuple[int, int]]:
    """Row ranges ``[r0, r1)`` of about ``SLICE_ENTRIES`` entries each (whole rows)."""
    entries = SLICE_ENTRIES
    cuts = np.searchsorted(indptr, np.arange(entries, int(indptr[-1]), entries))
    bounds = np.unique(np.concatenate(([0], cuts, [len(indptr) - 1])))
    return list(zip(bounds[:-1].tolist(), bounds[1:].tolist()))


def positive_pmi_upper(
    upper: sp.csr_matrix, word_windows: np.ndarray, num_windows: int
) -> sp.csr_matrix:
    """The positive PMI of upper-triangular window counts, as float32; consumes ``upper``.

    Each entry is the float64 expression of :func:`gfbgcn.text.graph.counts.ppmi_matrix`, tested
    ``> 0`` in float64 and then rounded to float32 (what the edge weights become anyway; a
    positive PMI is at least ``log(1 + 2**-52)``, far above float32's smallest number, so no
    kept entry rounds to zero).  ``upper``'s index arrays are reused for the result.
    """
    data = np.empty(upper.nnz, dtype=np.float32)
    for r0, r1 in _row_slices(upper.indptr):
        a, b = int(upper.indptr[r0]), int(upper.indptr[r1])
        den = np.repeat(word_windows[r0:r1], np.diff(upper.indptr[r0 : r1 + 1]))
        den *= word_windows[upper.indices[a:b]]
        pmi = upper.data[a:b] * num_windows
        pmi /= den
        np.log(pmi, out=pmi)
        pmi[~(pmi > 0)] = 0.0
        data[a:b] = pmi
    upper.data = data
    upper.eliminate_zeros()
    return upper


def node_id_dtype(num_nodes: int) -> type[np.signedinteger]:
    """int32 node ids where every node id fits (half the bytes of int64; what the graph cache
    stores and what a graph read from it holds), else int64."""
    return np.int32 if num_nodes <= np.iinfo(np.int32).max else np.int64


def _fill_node_ids(out: np.ndarray, first_node: int, indptr: np.ndarray) -> None:
    """``out = repeat(first_node + arange(rows), diff(indptr))``, a slice of rows at a time."""
    for r0, r1 in _row_slices(indptr):
        a, b = int(indptr[r0]), int(indptr[r1])
        out[a:b] = np.repeat(np.arange(first_node + r0, first_node + r1, dtype=np.int64),
                             np.diff(indptr[r0 : r1 + 1]))


def _scatter_rows(part: sp.csr_matrix | sp.csc_matrix, offset: np.ndarray, first_node: int,
                  dst: np.ndarray, weight: np.ndarray) -> None:
    """Entries of row r of ``part`` (column r of a CSC ``part``, the compressed axis either
    way) to ``dst``/``weight`` from position ``offset[r]`` on."""
    for r0, r1 in _row_slices(part.indptr):
        a, b = int(part.indptr[r0]), int(part.indptr[r1])
        where = np.arange(a, b, dtype=np.int64)
        where += np.repeat(offset[r0:r1] - part.indptr[r0:r1], np.diff(part.indptr[r0 : r1 + 1]))
        dst[where] = part.indices[a:b] + np.int64(first_node)
        weight[where] = part.data[a:b]


def edges_from_upper(parts: list[sp.csr_matrix]) -> tuple[np.ndarray, np.ndarray]:
    """:func:`graph_edges` of ``parts = [tfidf, U]`` given only ``U`` of ``U + U^T`` (canonical,
    strictly upper triangular, e.g. from :func:`positive_pmi_upper`), with ``edge_index`` in
    :func:`node_id_dtype` (int32 unless the graph has 2^31 nodes or more; the same values).

    ``U + U^T`` is never built, and ``parts`` is emptied as each matrix has been written (the
    document-word edges first, so that TF-IDF is gone before ``U^T`` is made, then ``U^T``
    and ``U``), so a caller that keeps no other reference frees them while the edge arrays
    fill: the build's peak is the edge arrays plus ``U`` and ``U^T`` (8 bytes an entry each).
    """
    tfidf, upper = parts
    num_docs, doc_word = tfidf.shape[0], tfidf.nnz
    sym_counts = np.bincount(upper.indices, minlength=upper.shape[0]) + np.diff(upper.indptr)
    total = 2 * doc_word + int(sym_counts.sum())
    edge_index = np.empty((2, total), dtype=node_id_dtype(num_docs + upper.shape[0]))
    edge_weight = np.empty(total, dtype=np.float32)
    src, dst = edge_index
    _fill_node_ids(src[:doc_word], 0, tfidf.indptr)
    np.add(tfidf.indices, num_docs, out=dst[:doc_word], dtype=edge_index.dtype)
    src[doc_word : 2 * doc_word] = dst[:doc_word]
    dst[doc_word : 2 * doc_word] = src[:doc_word]
    edge_weight[:doc_word] = tfidf.data
    edge_weight[doc_word : 2 * doc_word] = edge_weight[:doc_word]
    del tfidf, parts[0]
    lower = upper.tocsc()  # = U^T in CSR terms, indices sorted (a stable counting sort)
    low_counts = np.diff(lower.indptr)
    sym_indptr = np.zeros(upper.shape[0] + 1, dtype=np.int64)
    np.cumsum(sym_counts, out=sym_indptr[1:])
    del sym_counts
    words = slice(2 * doc_word, None)
    _fill_node_ids(src[words], num_docs, sym_indptr)
    _scatter_rows(lower, sym_indptr[:-1], num_docs, dst[words], edge_weight[words])
    del lower
    _scatter_rows(upper, sym_indptr[:-1] + low_counts, num_docs, dst[words], edge_weight[words])
    del upper
    parts.clear()
    return edge_index, edge_weight

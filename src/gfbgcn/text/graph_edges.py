"""The graph's edge arrays straight from the TF-IDF and upper-triangular PPMI matrices.

The reference assembly (:func:`gfbgcn.text.cooccurrence.assemble_adjacency`) symmetrises the
PPMI matrix with a sparse addition ``U + U^T`` and stacks the blocks with ``scipy.sparse.bmat``
into a COO matrix, then copies that into ``edge_index``.  Both steps are general-purpose merges
and copies over every edge.  Here the structure is known, so each edge array is written once:

* row ``r`` of ``U + U^T`` is column ``r`` of ``U`` (all columns ``< r``) followed by row ``r``
  of ``U`` (all ``> r``): no merge, two scatters;
* the edges come out in ``bmat``'s order (block by block, row-major: document -> word in TF-IDF's
  CSR order, word -> document in the same order, word -> word in CSR order), so the graph is the
  reference's array for array (``tests/text/test_graph_edges.py``, and the sharded-build tests).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from gfbgcn.text.cooccurrence import assemble_adjacency

__all__ = ["bmat_edges", "graph_edges", "symmetric_from_upper"]


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

"""Counting kernels of the Text GCN graph: TF-IDF, sliding-window co-occurrence and PPMI.

* document-word weights: TF-IDF with ``tf`` = raw count of the word in the document and
  ``idf = log(D / df)`` over all D documents (as the reference implementation; scikit-learn's
  ``TfidfTransformer`` uses ``log((1 + D) / (1 + df)) + 1``, not the paper's weight);
* word-word weights: positive PMI over sliding windows of ``window`` tokens,
  ``PMI(i, j) = log(p(i, j) / (p(i) p(j)))`` with window counts (see :func:`window_counts`).

Counting is vectorised: for each offset ``d = 1..window-1`` all token pairs ``(p, p + d)`` of all
documents are handled at once, and the number of windows that contain both positions (and in
which both are the first occurrence of their word, for the ``window`` definition) is a closed-form
interval length.  No Python loop runs over windows, tokens or edges.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from gfbgcn.text.tokenize.preprocess import TokenizedCorpus

__all__ = [
    "assemble_adjacency",
    "doc_word_counts",
    "ppmi_matrix",
    "tfidf_from_counts",
    "tfidf_matrix",
    "window_counts",
]


def doc_word_counts(tc: TokenizedCorpus) -> sp.csr_matrix:
    """Raw term counts ``[D, V]`` (float64 csr, sorted indices, no duplicates)."""
    num_docs, vocab_size = tc.num_docs, len(tc.vocab)
    doc_of_token = np.repeat(np.arange(num_docs, dtype=np.int64), tc.doc_lengths)
    counts = sp.csr_matrix(
        (np.ones(len(tc.tokens), dtype=np.float64), (doc_of_token, tc.tokens)),
        shape=(num_docs, vocab_size),
    )
    counts.sum_duplicates()
    return counts


def tfidf_matrix(tc: TokenizedCorpus) -> tuple[sp.csr_matrix, np.ndarray]:
    """``(TF-IDF [D, V] csr, idf [V])`` with raw counts as TF and ``log(D / df)`` as IDF."""
    return tfidf_from_counts(doc_word_counts(tc))


def tfidf_from_counts(counts: sp.csr_matrix) -> tuple[sp.csr_matrix, np.ndarray]:
    """TF-IDF of a canonical raw-count matrix (see :func:`tfidf_matrix`)."""
    num_docs, vocab_size = counts.shape
    df = np.bincount(counts.indices, minlength=vocab_size)
    idf = np.log(num_docs / np.maximum(df, 1))
    # scipy-stubs types spmatrix.multiply as ``*`` (a matrix product, dense for a dense operand);
    # the element-wise product with a dense row is sparse (coo)
    tfidf = counts.multiply(idf[None, :]).tocsr()  # type: ignore[attr-defined]
    tfidf.eliminate_zeros()  # a word in every document has idf 0: no edge
    return tfidf, idf


def _token_layout(tc: TokenizedCorpus) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per token: its position in its document, its document's length, and the position of the
    previous occurrence of the same word in the same document (-1 if none)."""
    lengths = tc.doc_lengths
    doc_of_token = np.repeat(np.arange(tc.num_docs, dtype=np.int64), lengths)
    local = np.arange(len(tc.tokens), dtype=np.int64) - tc.doc_ptr[:-1][doc_of_token]
    doc_len = lengths[doc_of_token]
    order = np.lexsort((local, tc.tokens, doc_of_token))
    same = np.zeros(len(order), dtype=bool)
    if len(order) > 1:
        same[1:] = (doc_of_token[order[1:]] == doc_of_token[order[:-1]]) & (
            tc.tokens[order[1:]] == tc.tokens[order[:-1]]
        )
    prev = np.full(len(order), -1, dtype=np.int64)
    prev_sorted = np.full(len(order), -1, dtype=np.int64)
    prev_sorted[1:] = local[order[:-1]]
    prev[order] = np.where(same, prev_sorted, -1)
    return local, doc_len, prev


def window_counts(
    tc: TokenizedCorpus, window: int, cooccurrence: str = "window", chunk_pairs: int = 12_000_000
) -> tuple[sp.csr_matrix, np.ndarray, int]:
    """``(W(i, j) [V, V] symmetric csr, W(i) [V], W)``; see the module docstring.

    Position pairs are summed into a sparse matrix in chunks of about ``chunk_pairs`` entries,
    which bounds peak memory (about 30 bytes per pending pair).
    """
    num_windows = int(np.maximum(tc.doc_lengths - window + 1, 1).sum())
    layout = _WindowLayout(tc, window)
    pairs = _PairChunks(len(tc.vocab), chunk_pairs)
    for d in range(1, window):
        found = layout.pairs_at_distance(d, first_only=cooccurrence == "window")
        if found is None:
            break
        pairs.add(*found)
    acc = pairs.total()
    pair_windows = (acc + acc.T).tocsr()
    pair_windows.sum_duplicates()
    return pair_windows, layout.word_windows(len(tc.vocab)), num_windows


class _WindowLayout:
    """Every token's position in its document, its document's length, the position of the
    previous occurrence of its word there, and the last window start of its document."""

    def __init__(self, tc: TokenizedCorpus, window: int) -> None:
        self.window = window
        self.tokens = tc.tokens.astype(np.int64)
        self.local, self.doc_len, self.prev = _token_layout(tc)
        self.last_start = np.maximum(self.doc_len - window, 0)

    def word_windows(self, vocab_size: int) -> np.ndarray:
        """``W(i)``: windows in which position ``p`` is the first occurrence of its word."""
        lo = np.maximum(np.maximum(self.local - self.window + 1, self.prev + 1), 0)
        hi = np.minimum(self.local, self.last_start)
        per_pos = np.maximum(hi - lo + 1, 0)
        return np.bincount(self.tokens, weights=per_pos, minlength=vocab_size)

    def pairs_at_distance(self, d: int, first_only: bool
                          ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """``(word p, word q, windows holding both)`` of the position pairs ``q = p + d`` of
        different words; None once no document is longer than ``d``."""
        p = np.flatnonzero(self.local + d < self.doc_len)
        if len(p) == 0:
            return None
        q = p + d
        wp, wq = self.tokens[p], self.tokens[q]
        # window starts s with both p and q inside: q - window + 1 <= s <= min(p, last_start)
        lo = np.maximum(self.local[q] - self.window + 1, 0)
        if first_only:
            lo = np.maximum(lo, np.maximum(self.prev[p], self.prev[q]) + 1)
        count = np.minimum(self.local[p], self.last_start[p]) - lo + 1
        keep = (count > 0) & (wp != wq)
        return (wp[keep].astype(np.int32), wq[keep].astype(np.int32),
                count[keep].astype(np.float32))


class _PairChunks:
    """``(row, col, value)`` triples summed into a ``[V, V]`` csr about ``chunk_pairs`` at a
    time (duplicates add up)."""

    def __init__(self, vocab_size: int, chunk_pairs: int) -> None:
        self.shape = (vocab_size, vocab_size)
        self.chunk_pairs = chunk_pairs
        self.acc = sp.csr_matrix(self.shape, dtype=np.float64)
        self.parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self.pending = 0

    def add(self, rows: np.ndarray, cols: np.ndarray, vals: np.ndarray) -> None:
        self.parts.append((rows, cols, vals))
        self.pending += len(rows)
        if self.pending >= self.chunk_pairs:
            self._flush()

    def _flush(self) -> None:
        if self.pending:
            rows, cols, vals = (np.concatenate(a) for a in zip(*self.parts))
            self.acc = self.acc + sp.coo_matrix((vals, (rows, cols)), shape=self.shape).tocsr()
            self.parts.clear()
            self.pending = 0

    def total(self) -> sp.csr_matrix:
        self._flush()
        return self.acc


def ppmi_matrix(
    pair_windows: sp.csr_matrix, word_windows: np.ndarray, num_windows: int
) -> sp.csr_matrix:
    """Positive PMI ``log(W(i,j) W / (W(i) W(j)))`` on the nonzeros of ``pair_windows``."""
    coo = pair_windows.tocoo()
    pmi = np.log(coo.data * num_windows / (word_windows[coo.row] * word_windows[coo.col]))
    keep = pmi > 0
    return sp.csr_matrix(
        (pmi[keep], (coo.row[keep], coo.col[keep])), shape=pair_windows.shape
    )


def assemble_adjacency(tfidf: sp.csr_matrix, ppmi: sp.csr_matrix) -> sp.coo_matrix:
    """``[[0, TFIDF], [TFIDF^T, PPMI]]`` (docs first), without self-loops."""
    num_docs = tfidf.shape[0]
    zeros = sp.csr_matrix((num_docs, num_docs))
    blocks: list[list[sp.spmatrix]] = [[zeros, tfidf], [tfidf.T, ppmi]]
    # format="coo" returns a coo_matrix; scipy-stubs types the result as any spmatrix
    return sp.bmat(blocks, format="coo")  # type: ignore[return-value]

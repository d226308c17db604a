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
    tfidf = counts.multiply(idf[None, :]).tocsr()
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
    vocab_size = len(tc.vocab)
    lengths = tc.doc_lengths
    num_windows = int(np.maximum(lengths - window + 1, 1).sum())
    local, doc_len, prev = _token_layout(tc)
    last_start = np.maximum(doc_len - window, 0)  # last window start in each token's document

    # W(i): windows in which position p is the first occurrence of its word.
    lo = np.maximum(np.maximum(local - window + 1, prev + 1), 0)
    hi = np.minimum(local, last_start)
    per_pos = np.maximum(hi - lo + 1, 0)
    word_windows = np.bincount(tc.tokens, weights=per_pos, minlength=vocab_size)

    first_only = cooccurrence == "window"
    tokens = tc.tokens.astype(np.int64)
    acc = sp.csr_matrix((vocab_size, vocab_size), dtype=np.float64)
    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    vals: list[np.ndarray] = []
    pending = 0

    def flush() -> None:
        nonlocal acc, pending
        if pending:
            chunk = sp.coo_matrix(
                (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                shape=(vocab_size, vocab_size),
            ).tocsr()  # sums duplicate (i, j) entries
            acc = acc + chunk
            rows.clear(), cols.clear(), vals.clear()
            pending = 0

    for d in range(1, window):
        p = np.flatnonzero(local + d < doc_len)
        if len(p) == 0:
            break
        q = p + d
        wp, wq = tokens[p], tokens[q]
        # window starts s with both p and q inside: q - window + 1 <= s <= min(p, last_start)
        lo = np.maximum(local[q] - window + 1, 0)
        if first_only:
            lo = np.maximum(lo, np.maximum(prev[p], prev[q]) + 1)
        hi = np.minimum(local[p], last_start[p])
        count = hi - lo + 1
        keep = (count > 0) & (wp != wq)
        rows.append(wp[keep].astype(np.int32))
        cols.append(wq[keep].astype(np.int32))
        vals.append(count[keep].astype(np.float32))
        pending += int(keep.sum())
        if pending >= chunk_pairs:
            flush()
    flush()
    pair_windows = (acc + acc.T).tocsr()
    pair_windows.sum_duplicates()
    return pair_windows, word_windows, num_windows


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
    return sp.bmat([[zeros, tfidf], [tfidf.T, ppmi]], format="coo")

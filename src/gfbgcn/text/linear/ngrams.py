"""The n-gram TF-IDF features of the linear baseline (:mod:`gfbgcn.text.linear.baseline`):
word 1-2-grams and ``char_wb`` 2-5-grams over a vocabulary (counted in worker processes from
:data:`PARALLEL_CHARS` characters on), or hashed word 1-2-grams at scale (in worker processes
from :data:`PARALLEL_ABOVE` documents on).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from gfbgcn.core.processes import forked_map
from gfbgcn.text.graph.sharded import available_cores

#: Hashed feature columns at scale: 2^18 keeps the dense coefficient matrix of 115 classes at
#: 240 MB (float64), at the price of bigram collisions.
HASH_FEATURES = 2 ** 18
WORD_NGRAMS = (1, 2)
CHAR_NGRAMS = (2, 5)
#: Hash documents in a pool of processes (one per core) from this many on: the analyser is
#: Python code, the dominant cost at scale (about 1 ms per 20NG-length document).
PARALLEL_ABOVE = 20_000


#: Count a vocabulary block in worker processes (one per core) from this many characters of
#: text on (:func:`count_block`).  Measured with two cores (the whole ``fit_baseline``, three
#: runs each, same result): R8's 3.3 M training characters 31-34 s against 37-42 serially,
#: subjectivity's 0.9 M 5.1-5.5 s against 5.6-6.3, customer-reviews' 0.26 M 1.4-1.7 s against
#: 1.3-1.6 (there the fork and the merge cost what they save).
PARALLEL_CHARS = 500_000

#: Above this many training documents the features are hashed and the grid keeps SGD and
#: complement naive Bayes only (:mod:`gfbgcn.text.linear.baseline`).
HASH_ABOVE = 50_000
#: ... or above this many characters of training text (the character block's size follows it).
HASH_CHARS = 20_000_000


def needs_hashing(texts: Sequence[str], fit_idx: np.ndarray) -> bool:
    """The scale mode (hashed word n-grams): more than :data:`HASH_ABOVE` fitting documents
    ``texts[fit_idx]`` or more than :data:`HASH_CHARS` characters of them."""
    return len(fit_idx) > HASH_ABOVE or sum(len(texts[i]) for i in fit_idx) > HASH_CHARS


def tfidf_features(counts: sp.csr_matrix, idf: np.ndarray) -> sp.csr_matrix:
    """Sublinear TF times IDF, rows L2-normalised (all-zero rows stay zero).

    Args:
        counts: ``[n, V]`` term counts.
        idf: ``[V]`` inverse document frequencies.
    """
    # in place on one float64 copy: at scale (10^8 non-zeros) every extra copy is a GB
    x = counts.tocsr().astype(np.float64, copy=True)
    np.log(x.data, out=x.data)
    x.data += 1.0
    x.data *= idf[x.indices]
    lengths = np.diff(x.indptr)
    norms = np.zeros(x.shape[0])
    rows = lengths > 0
    if x.nnz:
        norms[rows] = np.sqrt(np.add.reduceat(x.data ** 2, x.indptr[:-1][rows]))
    x.data /= np.repeat(np.where(rows, norms, 1.0), lengths)
    return x


def smoothed_idf(counts: sp.csr_matrix) -> np.ndarray:
    """``log((1 + n) / (1 + df)) + 1`` of the ``[n, V]`` counts of the fitting documents."""
    df = np.bincount(counts.tocsr().indices, minlength=counts.shape[1])
    return np.log((1.0 + counts.shape[0]) / (1.0 + df)) + 1.0


@dataclass
class FittedCounts:
    """A fitted vocabulary with the counts it was fitted from, to fit again for free.

    ``blocks`` (one ``[len(rows), V_b]`` matrix per block) are the counts of the documents
    ``rows`` (indices into the corpus), in that order; ``featuriser`` was fitted on exactly them.
    The baseline keeps them for the search's n-gram input features
    (:func:`gfbgcn.text.train.features.ngrams.fit_input_ngrams`), which fits the same vocabulary
    on the same documents.
    """

    featuriser: NgramFeatures
    rows: np.ndarray
    blocks: list[sp.csr_matrix]
    #: the other documents (sorted) and their counts, made for the baseline's probabilities
    rest: np.ndarray | None = None
    rest_blocks: list[sp.csr_matrix] | None = None

    def in_order(self, rows: np.ndarray) -> list[sp.csr_matrix]:
        """The blocks with their rows in the order of ``rows`` (the same documents)."""
        if not np.array_equal(np.sort(self.rows), np.sort(rows)):
            raise ValueError("these counts are of other documents")
        position = np.empty(int(self.rows.max(initial=-1)) + 1, dtype=np.int64)
        position[self.rows] = np.arange(len(self.rows))
        take = position[rows]
        return [b[take] for b in self.blocks]

    def rest_counts(self, rest: np.ndarray) -> list[sp.csr_matrix] | None:
        """The kept counts of the other documents when they are exactly ``rest`` (sorted), else
        None (the caller counts them)."""
        if self.rest is None or self.rest_blocks is None or not np.array_equal(self.rest, rest):
            return None
        return self.rest_blocks


@dataclass
class NgramFeatures:
    """Word 1-2-gram + ``char_wb`` 2-5-gram TF-IDF (or hashed word n-grams at scale).

    ``word_vocab``/``char_vocab``: the n-grams in column order (None when hashed); ``idf``: the
    IDF of every column, word block first.
    """

    idf: np.ndarray
    word_vocab: list[str] | None = None
    char_vocab: list[str] | None = None
    hashed: int = 0  # > 0: hashed word n-grams into this many columns, no char block

    @classmethod
    def fit(cls, texts: Sequence[str], hashed: bool, workers: int | None = None
            ) -> tuple[NgramFeatures, list]:
        """Vocabulary and IDF of ``texts``; also their counts (one matrix per block).

        Args:
            texts: the fitting documents.
            hashed: the scale mode (see the module docstring).
            workers: processes hashing documents (None: every core; see
                :data:`PARALLEL_ABOVE`).
        """
        if hashed:
            counts = hash_counts(texts, HASH_FEATURES, workers)
            return cls(smoothed_idf(counts), hashed=HASH_FEATURES), [counts]
        blocks: list[sp.csr_matrix] = []
        vocabs: list[list[str]] = []
        for analyzer, ngrams in (("word", WORD_NGRAMS), ("char_wb", CHAR_NGRAMS)):
            vocab, counts = count_block(texts, analyzer, ngrams, None, workers)
            vocabs.append(vocab)
            blocks.append(counts)
        idf = np.concatenate([smoothed_idf(b) for b in blocks])
        return cls(idf, vocabs[0], vocabs[1]), blocks

    @property
    def num_features(self) -> int:
        return len(self.idf)

    def counts(self, texts: Sequence[str], workers: int | None = None) -> list[sp.csr_matrix]:
        """The raw counts of ``texts``, one matrix per block (``workers``: see :meth:`fit`)."""
        if self.hashed:
            return [hash_counts(texts, self.hashed, workers)]
        out = []
        for analyzer, ngrams, vocab in (("word", WORD_NGRAMS, self.word_vocab),
                                        ("char_wb", CHAR_NGRAMS, self.char_vocab)):
            if not vocab:
                out.append(sp.csr_matrix((len(texts), 0)))
            else:
                out.append(count_block(texts, analyzer, ngrams, vocab, workers)[1])
        return out

    def transform_counts(self, blocks: list[sp.csr_matrix]) -> sp.csr_matrix:
        """TF-IDF of counts from :meth:`counts` (each block normalised on its own)."""
        parts, start = [], 0
        for b in blocks:
            idf = self.idf[start:start + b.shape[1]]
            start += b.shape[1]
            parts.append(tfidf_features(b, idf))
        return sp.hstack(parts, format="csr") if len(parts) > 1 else parts[0]

    def transform(self, texts: Sequence[str], workers: int | None = None) -> sp.csr_matrix:
        """``[n, num_features]`` TF-IDF rows of ``texts`` (``workers``: see :meth:`fit`)."""
        return self.transform_counts(self.counts(texts, workers))

    def meta(self) -> dict[str, Any]:
        return {"word_ngrams": list(WORD_NGRAMS), "char_ngrams": list(CHAR_NGRAMS),
                "hashed": self.hashed, "word_vocab": self.word_vocab,
                "char_vocab": self.char_vocab}

    @classmethod
    def from_meta(cls, meta: dict[str, Any], idf: np.ndarray) -> NgramFeatures:
        if tuple(meta["word_ngrams"]) != WORD_NGRAMS or tuple(meta["char_ngrams"]) != CHAR_NGRAMS:
            raise ValueError(f"n-gram ranges {meta['word_ngrams']}/{meta['char_ngrams']} are not "
                             f"this version's {WORD_NGRAMS}/{CHAR_NGRAMS}")
        for name in ("word_vocab", "char_vocab"):
            vocab = meta.get(name)
            if vocab is not None and not (isinstance(vocab, list)
                                          and all(isinstance(t, str) for t in vocab)
                                          and len(set(vocab)) == len(vocab)):
                # a repeat would silently shift every later column of the vectoriser
                raise ValueError(f"{name}: expected a list of distinct strings")
        out = cls(idf, meta.get("word_vocab"), meta.get("char_vocab"), int(meta["hashed"]))
        width = out.hashed or len(out.word_vocab or ()) + len(out.char_vocab or ())
        if width != len(idf):
            raise ValueError(f"{width} n-gram features but {len(idf)} IDF values")
        return out


def _counter(analyzer: str, ngrams: tuple[int, int], vocab: list[str] | None):
    from sklearn.feature_extraction.text import CountVectorizer

    return CountVectorizer(analyzer=analyzer, ngram_range=ngrams, dtype=np.float64,
                           vocabulary=None if vocab is None else {t: i for i, t in
                                                                  enumerate(vocab)})


def _count_serial(texts: Sequence[str], analyzer: str, ngrams: tuple[int, int],
                  vocab: list[str] | None) -> tuple[list[str], sp.csr_matrix]:
    """``(columns, [n, V] counts)`` of one block: fitted (sorted n-grams) or over ``vocab``."""
    vec = _counter(analyzer, ngrams, vocab)
    if vocab is not None:
        return vocab, vec.transform(texts).tocsr()
    try:
        counts = vec.fit_transform(texts).tocsr()
    except ValueError:  # no n-gram at all (e.g. only 1-character words)
        return [], sp.csr_matrix((len(texts), 0))
    return [str(t) for t in vec.get_feature_names_out()], counts


def _merge_fitted(parts: list[tuple[list[str], sp.csr_matrix]]
                  ) -> tuple[list[str], sp.csr_matrix]:
    """The block fitted on all the parts' documents, from the blocks fitted on each part.

    Columns: the union of the parts' vocabularies in sorted order (scikit-learn's).  Entries:
    in scikit-learn's order too, so that every later sum runs in the same order: it sorts a
    row's entries by the order in which the n-grams first occur in the corpus, then renames
    the columns.  Within a part the stored entries are in the part's first-occurrence order,
    so reading the merged entries row after row meets the n-grams in the corpus's order; a
    row's entries are sorted by that rank.
    """
    vocab = sorted(set().union(*(names for names, _ in parts)))
    column = {t: i for i, t in enumerate(vocab)}
    index = np.int32 if len(vocab) < 2 ** 31 else np.int64  # scikit-learn's index type
    moved = []
    for names, counts in parts:
        where = np.fromiter((column[t] for t in names), dtype=index, count=len(names))
        moved.append(sp.csr_matrix((counts.data, where[counts.indices], counts.indptr),
                                   shape=(counts.shape[0], len(vocab))))
    merged = sp.vstack(moved, format="csr")
    seen, first = np.unique(merged.indices, return_index=True)
    rank = np.empty(len(vocab), dtype=np.int64)
    rank[seen[np.argsort(first)]] = np.arange(len(seen))
    # the first part's rows are in that order already (its order is the corpus's)
    start = int(merged.indptr[parts[0][1].shape[0]])
    rows = np.repeat(np.arange(merged.shape[0]), np.diff(merged.indptr))[start:]
    order = start + np.argsort(rows * len(vocab) + rank[merged.indices[start:]])
    merged.indices[start:], merged.data[start:] = merged.indices[order], merged.data[order]
    merged.has_sorted_indices = False  # (by rank, not by column)
    return vocab, merged


def _forked_map(work: Callable[..., Any], shared: Any, cuts: np.ndarray, workers: int
                ) -> list[Any]:
    """``[work(shared, a, b) for a, b in consecutive cuts]`` in ``workers`` forked processes
    (:func:`gfbgcn.core.processes.forked_map`)."""
    return forked_map(work, shared, [(int(a), int(b)) for a, b in zip(cuts[:-1], cuts[1:])],
                      workers)


def _forks(workers: int | None, size: int, threshold: int) -> int:
    """The worker processes for a job of ``size`` (documents, characters): 1 (serial) below
    ``threshold``, with one core or where there is no fork; else ``workers`` (None: every
    available core)."""
    workers = available_cores() if workers is None else workers
    return 1 if size < threshold or sys.platform == "win32" else workers


def _count_chunk(shared: tuple, start: int, end: int) -> tuple[list[str], sp.csr_matrix]:
    texts, analyzer, ngrams, vocab = shared
    names, counts = _count_serial(texts[start:end], analyzer, ngrams, vocab)
    return (names if vocab is None else []), counts


def count_block(texts: Sequence[str], analyzer: str, ngrams: tuple[int, int],
                vocab: list[str] | None, workers: int | None = None
                ) -> tuple[list[str], sp.csr_matrix]:
    """``(columns, [n, V] float64 counts)`` of one n-gram block of ``texts``: fitted (``vocab``
    None: the sorted n-grams of ``texts``) or over ``vocab``; counted in ``workers`` forked
    processes (None: every core) from :data:`PARALLEL_CHARS` characters on, each on a
    contiguous share of the characters.  The same columns and counts either way (tested).

    The analyser is Python code under the GIL, so threads would not help; the workers inherit
    the documents through fork and send back their counts.
    """
    lengths = np.fromiter((len(t) for t in texts), dtype=np.int64, count=len(texts))
    workers = _forks(workers, int(lengths.sum()), PARALLEL_CHARS)
    if workers <= 1:
        return _count_serial(texts, analyzer, ngrams, vocab)
    shares = np.searchsorted(np.cumsum(lengths), lengths.sum() * np.arange(1, workers) / workers)
    cuts = np.unique(np.r_[0, shares, len(texts)])
    parts = _forked_map(_count_chunk, (texts, analyzer, ngrams, vocab), cuts, len(cuts) - 1)
    if vocab is not None:
        return vocab, sp.vstack([c for _, c in parts], format="csr")
    return _merge_fitted(parts)


def _hash_chunk(shared: tuple, start: int, end: int) -> sp.csr_matrix:
    texts, n_features = shared
    return _hashing(n_features).transform(texts[start:end]).tocsr()


def hash_counts(texts: Sequence[str], n_features: int, workers: int | None = None
                ) -> sp.csr_matrix:
    """Hashed word 1-2-gram counts of ``texts`` (float32), in ``workers`` forked processes
    (None: every core) from :data:`PARALLEL_ABOVE` documents on; the same matrix either way.

    Args:
        texts: the documents.
        n_features: the hashing width.
        workers: processes (None: every available core).
    """
    workers = _forks(workers, len(texts), PARALLEL_ABOVE)
    if workers <= 1:
        return _hashing(n_features).transform(texts).tocsr()
    cuts = np.linspace(0, len(texts), 4 * workers + 1).astype(int)  # small tasks balance
    return sp.vstack(_forked_map(_hash_chunk, (texts, n_features), cuts, workers), format="csr")


def _hashing(n_features: int):
    from sklearn.feature_extraction.text import HashingVectorizer

    # no sign flipping and no normalisation: these are counts, TF-IDF follows
    return HashingVectorizer(analyzer="word", ngram_range=WORD_NGRAMS, n_features=n_features,
                             alternate_sign=False, norm=None, dtype=np.float32)

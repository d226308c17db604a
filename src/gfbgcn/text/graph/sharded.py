"""The counts behind the Text GCN graph, computed shard by shard in a pool of processes.

Two passes over contiguous shards of documents (each shard a few million characters):

1. *tokenize*: each worker runs the ordinary :func:`gfbgcn.text.tokenize.preprocess.preprocess`
   on its shard (for the default tokenizer, the equivalent whole-shard
   :func:`gfbgcn.text.tokenize.batch.textgcn_token_ids`) with nothing dropped
   (``min_freq=1``, no stop words) and returns int32 word ids over a shard-local vocabulary
   plus that vocabulary's counts.  The parent sums the counts per word
   and selects the global vocabulary with the same
   :func:`~gfbgcn.text.tokenize.preprocess.select_vocabulary` as the single-process path (rare
   and stop words out, frequency order).
2. *count*: each worker maps its shard to global ids and counts document-word terms and
   upper-triangular window co-occurrences (:mod:`gfbgcn.text.graph.window_pairs`); the parent stacks
   the term counts and sums the co-occurrence matrices.

Workers are forked, so they read the texts, the tokenizer and the pass-1 arrays from the parent's
memory instead of receiving pickled copies (any tokenizer works, lambdas included); only the
per-shard results travel back.  Without ``fork`` (Windows, macOS default) or with one worker the
same shard functions run in the calling process.  Every count is an exact integer, so the result
is identical for any number of workers and any sharding.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from gfbgcn.core.processes import worker_pool
from gfbgcn.text.graph.counts import doc_word_counts
from gfbgcn.text.graph.phases import timed
from gfbgcn.text.graph.window_pairs import SparseSum, upper_window_counts
from gfbgcn.text.tokenize.batch import textgcn_token_ids
from gfbgcn.text.tokenize.clean import Tokenizer, textgcn_tokenize
from gfbgcn.text.tokenize.preprocess import (
    TokenizedCorpus,
    preprocess,
    select_vocabulary,
)

__all__ = ["CorpusCounts", "available_cores", "count_corpus", "shard_bounds"]

#: Shard sizes in characters: at least four shards per worker (load balance), each between
#: these bounds.  8 M characters are about 1 M kept tokens of English prose, i.e. at most
#: (window - 1) * 1 M pending pairs of 8 bytes per worker; fewer, larger shards merge faster.
MIN_SHARD_CHARS = 1_000_000
MAX_SHARD_CHARS = 8_000_000


def default_shard_chars(total_chars: int, workers: int) -> int:
    return int(np.clip(total_chars // (4 * workers), MIN_SHARD_CHARS, MAX_SHARD_CHARS))

# Inherited by forked workers (set just before a pool starts, cleared after).
_JOB: dict[str, Any] = {}


@dataclass
class CorpusCounts:
    """Everything the graph needs from the corpus, with the corpus itself gone."""

    vocab: list[str]
    word_count: np.ndarray  # int64 [V]
    doc_lengths: np.ndarray  # int64 [D] kept tokens per document
    doc_word: sp.csr_matrix  # float64 [D, V] raw term counts
    pairs_upper: sp.csr_matrix  # float64 [V, V] W(i, j) for i < j
    word_windows: np.ndarray  # float64 [V] W(i)
    num_windows: int


def available_cores() -> int:
    """Cores this process may run on (the affinity mask where the OS has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def shard_bounds(texts: Sequence[str], workers: int, shard_chars: int | None = None) -> np.ndarray:
    """Document indices ``[0, ..., D]`` cutting the corpus into shards of ~``shard_chars``."""
    chars = np.fromiter((len(t) for t in texts), dtype=np.int64, count=len(texts))
    ends = np.cumsum(chars)
    total = int(ends[-1]) if len(ends) else 0
    shard_chars = shard_chars or default_shard_chars(total, workers)
    cuts = np.searchsorted(ends, np.arange(shard_chars, total, shard_chars), side="right")
    return np.unique(np.concatenate(([0], cuts, [len(texts)]))).astype(np.int64)


def _tokenize_shard(index: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Pass 1: ``(shard vocabulary, its counts, int32 ids, doc_ptr)`` with nothing dropped."""
    first, last = _JOB["bounds"][index], _JOB["bounds"][index + 1]
    texts = _JOB["texts"][first:last]
    if _JOB["tokenizer"] is textgcn_tokenize:  # the default: whole shard at once, same tokens
        batch = textgcn_token_ids(texts)
        if batch is not None:
            words, ids, doc_ptr = batch
            return words, np.bincount(ids, minlength=len(words)), ids, doc_ptr
    tc = preprocess(texts, _JOB["tokenizer"], min_freq=1, stop_words=None)
    return np.array(tc.vocab, dtype=object), tc.word_count, tc.tokens, tc.doc_ptr


def _global_tokens(index: int) -> TokenizedCorpus:
    """Shard ``index`` in global word ids, words outside the vocabulary dropped."""
    tokens, doc_ptr = _JOB["shards"][index]
    ids = _JOB["remaps"][index][tokens]
    keep = ids >= 0
    doc_of_token = np.repeat(np.arange(len(doc_ptr) - 1), np.diff(doc_ptr))
    lengths = np.bincount(doc_of_token[keep], minlength=len(doc_ptr) - 1)
    new_ptr = np.zeros(len(doc_ptr), dtype=np.int64)
    np.cumsum(lengths, out=new_ptr[1:])
    vocab = _JOB["vocab"]
    kept = ids[keep]
    return TokenizedCorpus(vocab, kept, new_ptr, np.bincount(kept, minlength=len(vocab)))


def _count_shard(index: int) -> tuple[Any, ...]:
    """Pass 2: ``(doc-word counts, upper W(i, j), W(i), W, doc lengths, word counts)``."""
    tc = _global_tokens(index)
    upper, word_windows, num_windows = upper_window_counts(tc, _JOB["window"], _JOB["mode"])
    return (doc_word_counts(tc), upper, word_windows, num_windows, tc.doc_lengths,
            tc.word_count)


def _run(task: Callable[[int], Any], count: int, workers: int) -> Iterator[Any]:
    """``task(i)`` for i < count, in order, in a forked pool or (workers == 1) right here."""
    if workers <= 1 or count <= 1:
        yield from map(task, range(count))
        return
    context = multiprocessing.get_context("fork")
    with worker_pool(context, min(workers, count)) as pool:  # die with us, Ctrl-C included
        yield from pool.imap(task, range(count))


def _merge_vocabularies(
    parts: list[tuple[np.ndarray, np.ndarray]], min_freq: int, stop_words: Any
) -> tuple[list[str], list[np.ndarray]]:
    """Global vocabulary and, per shard, its local-id -> global-id map (-1: dropped)."""
    words = np.concatenate([w for w, _ in parts]) if parts else np.empty(0, dtype=object)
    counts = np.concatenate([c for _, c in parts]) if parts else np.empty(0, dtype=np.int64)
    codes, uniques = pd.factorize(words, sort=False)
    uniques = np.asarray(uniques, dtype=object)
    totals = np.bincount(codes, weights=counts, minlength=len(uniques)).astype(np.int64)
    kept = select_vocabulary(uniques, totals, min_freq=min_freq, stop_words=stop_words)
    global_id = np.full(len(uniques), -1, dtype=np.int32)
    global_id[kept] = np.arange(len(kept), dtype=np.int32)
    offsets = np.cumsum([0] + [len(w) for w, _ in parts])
    remaps = [global_id[codes[a:b]] for a, b in zip(offsets[:-1], offsets[1:])]
    return [str(w) for w in uniques[kept]], remaps


def _count_pass(num_shards: int, workers: int, vocab_size: int) -> tuple[Any, ...]:
    """Pass 2 over the shards of ``_JOB``: the workers count, this process sums."""
    pairs = SparseSum((vocab_size, vocab_size))
    doc_word, lengths = [], []
    word_windows = np.zeros(vocab_size, dtype=np.float64)
    word_count = np.zeros(vocab_size, dtype=np.int64)
    num_windows = 0
    for dw, upper, ww, nw, dl, wc in _run(_count_shard, num_shards, workers):
        doc_word.append(dw)
        pairs.add(upper)
        word_windows += ww
        num_windows += nw
        lengths.append(dl)
        word_count += wc
    return doc_word, pairs, lengths, word_windows, num_windows, word_count


def count_corpus(
    texts: Sequence[str],
    tokenizer: Tokenizer,
    *,
    min_freq: int,
    stop_words: str | Iterable[str] | None,
    window: int,
    cooccurrence: str,
    workers: int | None = None,
    shard_chars: int | None = None,
    phases: dict[str, float] | None = None,
) -> CorpusCounts:
    """Tokenize and count ``texts`` with ``workers`` processes (default: every available core).

    ``phases``, when given, receives the wall seconds of each phase
    (:data:`gfbgcn.text.graph.phases.BUILD_PHASES`)."""
    workers = available_cores() if workers is None else max(1, int(workers))
    if ("fork" not in multiprocessing.get_all_start_methods()
            or multiprocessing.current_process().daemon):  # a pool's worker may not fork again
        workers = 1
    bounds = shard_bounds(texts, workers, shard_chars)
    num_shards = len(bounds) - 1
    _JOB.update(texts=texts, tokenizer=tokenizer, bounds=bounds)
    try:
        shards, parts = [], []
        with timed(phases, "tokenize"):
            for words, counts, tokens, doc_ptr in _run(_tokenize_shard, num_shards, workers):
                parts.append((words, counts))
                shards.append((tokens, doc_ptr))
        with timed(phases, "vocabulary merge"):
            vocab, remaps = _merge_vocabularies(parts, min_freq, stop_words)
        del parts
        _JOB.update(shards=shards, remaps=remaps, vocab=vocab, window=window, mode=cooccurrence)
        del shards, remaps
        vocab_size = len(vocab)
        with timed(phases, "count"):
            doc_word, pairs, lengths, word_windows, num_windows, word_count = _count_pass(
                num_shards, workers, vocab_size)
    finally:
        _JOB.clear()
    with timed(phases, "count assembly"):
        doc_word_all = (sp.vstack(doc_word, format="csr") if doc_word
                        else sp.csr_matrix((0, vocab_size), dtype=np.float64))
        pairs_upper = pairs.total()
    return CorpusCounts(
        vocab=vocab,
        word_count=word_count,
        doc_lengths=np.concatenate(lengths).astype(np.int64) if lengths else np.zeros(0, np.int64),
        doc_word=doc_word_all,
        pairs_upper=pairs_upper,
        word_windows=word_windows,
        num_windows=num_windows,
    )

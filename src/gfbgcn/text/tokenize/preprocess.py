"""Cleaning, tokenization, stop-word and rare-word removal, as in Text GCN (Yao et al. 2019).

The default tokenizer is Kim (2014)'s ``clean_str`` as Text GCN applies it: keep
``[A-Za-z0-9(),!?'`]``, split clitics (``'s 've n't 're 'd 'll``), pad ``, ! ( ) ?`` with spaces,
lower-case.  Like the reference, ``( ) ?`` come out as the two-character tokens ``\\(``, ``\\)``
and ``\\?`` (the reference's replacement strings keep the backslash).  Then NLTK's English stop
words (shipped with gfbgcn: :mod:`gfbgcn.text.tokenize.stop_words`) and words seen fewer than
``min_freq`` (5) times in the whole corpus are removed.

Any callable ``str -> list[str]`` may replace the tokenizer (e.g. a Chinese word segmenter).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from gfbgcn.text.tokenize.clean import Tokenizer, textgcn_tokenize
from gfbgcn.text.tokenize.stop_words import load_stop_words


@dataclass
class TokenizedCorpus:
    """Documents as word ids in one flat array, CSR style.

    ``tokens[doc_ptr[d]:doc_ptr[d+1]]`` are the word ids of document ``d``, in text order.
    Word ids index ``vocab``, which is ordered by decreasing corpus frequency (ties
    alphabetically), so frequent words get small ids (better memory locality later).
    """

    vocab: list[str]
    tokens: np.ndarray  # int32 [T]
    doc_ptr: np.ndarray  # int64 [D + 1]
    word_count: np.ndarray  # int64 [V] corpus frequency of each kept word

    @property
    def num_docs(self) -> int:
        return len(self.doc_ptr) - 1

    @property
    def doc_lengths(self) -> np.ndarray:
        return np.diff(self.doc_ptr)

    def doc(self, d: int) -> np.ndarray:
        return self.tokens[self.doc_ptr[d] : self.doc_ptr[d + 1]]

    def empty_docs(self) -> np.ndarray:
        return np.flatnonzero(self.doc_lengths == 0)

def _flatten(docs: Sequence[list[str]]) -> tuple[np.ndarray, np.ndarray]:
    lengths = np.fromiter((len(d) for d in docs), dtype=np.int64, count=len(docs))
    flat = np.empty(int(lengths.sum()), dtype=object)
    flat[:] = list(itertools.chain.from_iterable(docs))
    return flat, lengths

def select_vocabulary(
    words: np.ndarray,
    counts: np.ndarray,
    *,
    min_freq: int = 5,
    stop_words: str | Iterable[str] | None = "english",
) -> np.ndarray:
    """Indices into ``words`` (distinct, object array) of the kept vocabulary, in id order.

    Drops words seen fewer than ``min_freq`` times (``counts``) and stop words.  Shared by
    :func:`preprocess` and the sharded build, which sums ``counts`` over shards first.
    """
    keep_word = counts >= min_freq
    if stop_words is not None:
        stop: frozenset[str] | set[str]
        if isinstance(stop_words, str):  # a language or a one-word-a-line file
            stop = load_stop_words(stop_words)
        else:
            stop = set(stop_words)
        keep_word &= ~pd.Index(words).isin(list(stop))
    kept = np.flatnonzero(keep_word)
    # frequency-descending order, ties alphabetical: deterministic and cache friendly
    order = np.lexsort((words[kept].astype(str), -counts[kept]))
    return kept[order]

def preprocess(
    texts: Iterable[str],
    tokenizer: Tokenizer = textgcn_tokenize,
    *,
    min_freq: int = 5,
    stop_words: str | Iterable[str] | None = "english",
    vocab: Sequence[str] | None = None,
    vocab_index: pd.Index | None = None,
) -> TokenizedCorpus:
    """Tokenize ``texts`` and map tokens to ids, dropping stop words and rare words.

    With ``vocab`` given (e.g. a trained model's), tokens outside it are dropped and ids follow
    that vocabulary; ``min_freq`` is then not applied.  ``vocab_index`` (``pd.Index(vocab)``)
    lets a caller that tokenizes many small batches build the hash index once.
    """
    docs = [tokenizer(t) for t in texts]
    flat, lengths = _flatten(docs)
    codes, uniques = pd.factorize(flat, sort=False)
    uniques = np.asarray(uniques, dtype=object)
    if vocab is None:
        counts = np.bincount(codes, minlength=len(uniques))
        kept = select_vocabulary(uniques, counts, min_freq=min_freq, stop_words=stop_words)
        new_vocab = [str(w) for w in uniques[kept]]
    else:
        new_vocab = vocab if isinstance(vocab, list) else list(vocab)
        if vocab_index is None:
            vocab_index = pd.Index(new_vocab)
        elif len(vocab_index) != len(new_vocab):
            raise ValueError(f"vocab_index has {len(vocab_index)} words, vocab {len(new_vocab)}")
        position = vocab_index.get_indexer(pd.Index(uniques))
        kept = np.flatnonzero(position >= 0)
        kept = kept[np.argsort(position[kept])]
        full = np.full(len(new_vocab), -1, dtype=np.int64)
        full[position[kept]] = kept
        kept = full  # word id -> unique index (or -1 where the word never occurs here)
    remap = np.full(len(uniques), -1, dtype=np.int64)
    valid = kept >= 0
    remap[kept[valid]] = np.flatnonzero(valid)
    ids = remap[codes] if len(codes) else np.empty(0, dtype=np.int64)
    keep_tok = ids >= 0
    doc_of_token = np.repeat(np.arange(len(lengths)), lengths)
    new_lengths = np.bincount(doc_of_token[keep_tok], minlength=len(lengths))
    doc_ptr = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(new_lengths, out=doc_ptr[1:])
    tokens = ids[keep_tok].astype(np.int32)
    word_count = np.bincount(tokens, minlength=len(new_vocab)).astype(np.int64)
    return TokenizedCorpus(new_vocab, tokens, doc_ptr, word_count)

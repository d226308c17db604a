"""The default ``textgcn`` tokenizer over many documents at once, as NumPy byte arrays.

:func:`gfbgcn.text.tokenize.clean.textgcn_tokenize` runs twelve regular-expression passes, a split
and a join per document, and the tokens then become millions of Python strings that are hashed
one by one.  On 20 Newsgroups that is most of the graph build.  :func:`textgcn_token_ids` gives
the same tokens, as word ids over a vocabulary, without creating a string per token:

* the documents are joined with ``NUL`` (a document containing ``NUL`` falls back to the
  per-document path: the caller gets ``None``) and encoded to ASCII bytes, every non-ASCII code
  point becoming one space, exactly as ``clean_str``'s first rule replaces it;
* a 256-entry lookup table applies that first rule (anything outside ``[A-Za-z0-9(),!?'`]``
  becomes a space);
* the other rules only insert spaces (and a backslash before ``( ) ?``): they become token
  *cuts*, found by comparing shifted views of the byte array.  No rule's match can overlap
  another's, and an inserted space never creates or breaks a later match, so finding all
  matches on the first rule's output equals applying the rules one after another;
* a token is a maximal run of non-blank bytes between cuts; it is identified by its first 16
  lower-cased bytes read as two integers (tokens never contain ``NUL``, so zero padding is
  unambiguous), and only tokens longer than 16 bytes are compared as Python bytes.

``tests/text/tokenize/test_batch.py`` checks token for token against ``textgcn_tokenize`` on
hand-made edge cases and, with the data present, on all four benchmarks.
"""

from __future__ import annotations

import codecs
from collections.abc import Sequence

import numpy as np
import pandas as pd

__all__ = ["textgcn_token_ids"]

_SEP = 0  # document separator byte
_KEPT = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789(),!?'`"
_CLEAN = np.full(256, ord(" "), dtype=np.uint8)  # clean_str's first rule, as a table
_CLEAN[list(_KEPT)] = list(_KEPT)
_CLEAN[_SEP] = _SEP
_LOWER = np.arange(256, dtype=np.uint8)
_LOWER[ord("A") : ord("Z") + 1] += ord("a") - ord("A")
_BLANK = np.zeros(256, dtype=bool)
_BLANK[[ord(" "), _SEP]] = True
_ALONE = np.zeros(256, dtype=bool)  # padded with spaces by clean_str: always a token alone
_ALONE[list(b",!()?")] = True
#: clitics that clean_str splits off with a space before them (case-sensitive, as there)
_CLITICS = (b"'s", b"'ve", b"n't", b"'re", b"'d", b"'ll")
#: clean_str writes these three with a backslash (the reference's replacement strings)
_ESCAPED = {"(": "\\(", ")": "\\)", "?": "\\?"}
_PREFIX = 16  # bytes of a token packed into two uint64 keys
_MASKS = np.array([(1 << (8 * n)) - 1 for n in range(9)], dtype=np.uint64)  # little-endian
_ERRORS = "gfbgcn.non_ascii_to_space"


def _non_ascii_to_space(err: UnicodeError) -> tuple[str, int]:
    if not isinstance(err, UnicodeEncodeError):  # registered for encoding only
        raise err
    return " " * (err.end - err.start), err.end


codecs.register_error(_ERRORS, _non_ascii_to_space)


def _mark_starts(data: np.ndarray, pattern: bytes, out: np.ndarray) -> None:
    """``out[i] |= True`` where ``pattern`` starts at ``data[i]``."""
    n = len(data) - len(pattern) + 1
    if n <= 0:
        return
    hit = data[:n] == pattern[0]
    for j in range(1, len(pattern)):
        hit &= data[j : j + n] == pattern[j]
    out[:n] |= hit


def _token_spans(data: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(starts, ends)`` of the tokens of cleaned bytes ``data`` (after rule one)."""
    blank = _BLANK[data]
    alone = _ALONE[data]
    cut = alone.copy()  # a token starts at a cut even without a blank before it
    cut[1:] |= alone[:-1]
    for clitic in _CLITICS:
        _mark_starts(data, clitic, cut)
    begin = ~blank
    begin[1:] &= cut[1:] | blank[:-1]
    end = ~blank
    end[:-1] &= cut[1:] | blank[1:]
    return np.flatnonzero(begin), np.flatnonzero(end) + 1


def _prefix_key(low: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Per token, its first 8 bytes (from ``starts``) as one uint64, zero past its end."""
    padded = np.concatenate((low, np.zeros(_PREFIX, dtype=np.uint8)))
    rows = np.lib.stride_tricks.as_strided(padded, shape=(len(padded) - 7, 8), strides=(1, 1))
    key = rows[starts].view(np.uint64).ravel()
    key &= _MASKS[np.minimum(lengths, 8)]
    return key


def _factorize_spans(low: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Dense int64 ids per token, equal exactly for equal byte strings."""
    lengths = ends - starts
    ids, firsts = pd.factorize(_prefix_key(low, starts, lengths))
    long = np.flatnonzero(lengths > 8)
    if len(long) == 0:
        return ids.astype(np.int64)
    # bytes 8-15 of the longer tokens, then (over 16 bytes) the whole token, settle ties
    tail = pd.factorize(_prefix_key(low, starts[long] + 8, lengths[long] - 8))[0]
    tail = tail.astype(np.int64)
    longest = np.flatnonzero(lengths[long] > _PREFIX)
    if len(longest):
        raw = low.tobytes()
        whole = np.empty(len(longest), dtype=object)
        whole[:] = [raw[a:b] for a, b in zip(starts[long[longest]].tolist(),
                                             ends[long[longest]].tolist())]
        tail[longest] = -1 - pd.factorize(whole)[0]
    pair = ids[long].astype(np.int64) * (2 * len(long) + 1) + tail + len(long)
    ids = ids.astype(np.int64)
    ids[long] = len(firsts) + pd.factorize(pair)[0]
    used = np.zeros(len(firsts) + len(long), dtype=bool)
    used[ids] = True  # a prefix seen only in long tokens left a gap: close it
    return (np.cumsum(used) - 1)[ids]


def textgcn_token_ids(
    texts: Sequence[str],
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """``(words, ids, doc_ptr)``: the ``textgcn_tokenize`` tokens of all ``texts``.

    ``words`` (object array of str) in first-seen order, ``ids`` int32 indexes into it, token by
    token in text order, ``doc_ptr`` [D + 1] as in
    :class:`~gfbgcn.text.tokenize.preprocess.TokenizedCorpus`.
    ``None`` when a text contains ``NUL`` (the caller tokenizes document by document then).
    """
    joined = "\0".join(texts)
    if joined.count("\0") != max(len(texts) - 1, 0):
        return None
    data = _CLEAN[np.frombuffer(joined.encode("ascii", errors=_ERRORS), dtype=np.uint8)]
    del joined
    starts, ends = _token_spans(data)
    doc_ptr = np.zeros(len(texts) + 1, dtype=np.int64)
    doc_ptr[1:-1] = np.searchsorted(starts, np.flatnonzero(data == _SEP))
    doc_ptr[-1] = len(starts)
    low = _LOWER[data]
    del data
    ids = _factorize_spans(low, starts, ends)
    where = np.empty(int(ids.max()) + 1 if len(ids) else 0, dtype=np.int64)
    where[ids] = np.arange(len(ids))  # any occurrence: all of a word's tokens are equal
    raw = low.tobytes()
    words = np.empty(len(where), dtype=object)
    words[:] = [raw[a:b].decode("ascii")
                for a, b in zip(starts[where].tolist(), ends[where].tolist())]
    for bare, escaped in _ESCAPED.items():
        words[words == bare] = escaped
    return words, ids.astype(np.int32), doc_ptr

"""The whole-shard tokenizer gives exactly textgcn_tokenize's tokens, document by document."""

from __future__ import annotations

import numpy as np
import pytest

from gfbgcn.text.tokenize.batch import textgcn_token_ids
from gfbgcn.text.corpus.benchmarks import load_benchmark
from gfbgcn.text.tokenize.preprocess import textgcn_tokenize

TRICKY = [
    "",
    "   \t\n ",
    "It's what we've said: they're sure he'd go, we'll see; don't, can't!",
    "IT'S DON'T N'T 'S 'Ll 'll 've're n'tn't ''s '''",
    "(a)(b)?c,d!e((f))??,,!!",
    "naïve café – “quotes” 😀 \udcff tail",  # non-ASCII, a lone surrogate
    "back\\slash \\( already [escaped] {x} <y> a_b a-b a.b a/b a:b a;b #1 $2 %3",
    "`tick` ``double'' O'Neil rock'n'roll",
    "abcdefgh abcdefghi abcdefghij abcdefgh1 ABCDEFGH",
    "abcdefghijklmnop abcdefghijklmnopq abcdefghijklmnopqr abcdefghijklmnopqr2 "
    "abcdefghijklmnopqr abcdefghijklmnopq",
    "x" * 40 + " " + "x" * 41 + " " + "x" * 40 + "y",
    "Line\r\nbreaks\x0bvertical\x0cfeed\x1fcontrol\x7fdel",
    "12,345.67 (1999) 3rd 4th",
    "'",
    "n't",
]


def _reference(texts: list[str]) -> tuple[list[str], list[int]]:
    docs = [textgcn_tokenize(t) for t in texts]
    return [w for d in docs for w in d], [len(d) for d in docs]


def _assert_same_tokens(texts: list[str]) -> None:
    words, ids, doc_ptr = textgcn_token_ids(texts)
    flat, lengths = _reference(texts)
    assert list(np.diff(doc_ptr)) == lengths
    assert list(words[ids]) == flat
    assert len(set(words)) == len(words)  # one id per distinct token
    assert ids.dtype == np.int32


def test_tricky_texts_give_the_same_tokens():
    _assert_same_tokens(TRICKY)
    _assert_same_tokens(list(reversed(TRICKY)))
    for text in TRICKY:  # one document alone, at the array's edges
        _assert_same_tokens([text])


def test_no_documents_and_empty_documents():
    words, ids, doc_ptr = textgcn_token_ids([])
    assert len(words) == len(ids) == 0 and list(doc_ptr) == [0]
    words, ids, doc_ptr = textgcn_token_ids(["", "", ""])
    assert len(ids) == 0 and list(doc_ptr) == [0, 0, 0, 0]


def test_random_texts_give_the_same_tokens():
    rng = np.random.default_rng(0)
    alphabet = list("aAbBnNtTsSdlvre'`(),!?.-_ \t\n\x00é€") + ["ab", "n't", "'ll", "xxxxxxxxxx"]
    alphabet.remove("\x00")
    texts = ["".join(rng.choice(alphabet, size=rng.integers(0, 60))) for _ in range(300)]
    _assert_same_tokens(texts)


def test_a_text_with_nul_is_left_to_the_per_document_path():
    assert textgcn_token_ids(["a\x00b", "c"]) is None


@pytest.mark.realdata
@pytest.mark.parametrize("name", ["r8", "r52", "ohsumed", "20ng"])
def test_benchmark_corpora_give_the_same_tokens(data_dir, name):
    _assert_same_tokens(load_benchmark(name, data_dir).texts)

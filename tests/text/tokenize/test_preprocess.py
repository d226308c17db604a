"""Cleaning and tokenization as Text GCN, stop words, rare words, and given vocabularies."""

from __future__ import annotations

import pytest

from gfbgcn.text.tokenize.clean import (
    clean_str,
    textgcn_tokenize,
    tokenizer_key,
    whitespace_tokenize,
)
from gfbgcn.text.tokenize.preprocess import preprocess


def test_clean_str_as_text_gcn():
    assert clean_str("Don't STOP, it's (really) good?!") == \
        "do n't stop , it 's \\( really \\) good \\? !"
    assert textgcn_tokenize("U.S. shares rose 5% <b>") == ["u", "s", "shares", "rose", "5", "b"]
    assert whitespace_tokenize(" a  b\tc ") == ["a", "b", "c"]


def test_rare_and_stop_words_and_vocabulary_order():
    docs = ["b a b c", "a b d the", "b e"]
    tc = preprocess(docs, whitespace_tokenize, min_freq=2, stop_words=["the"])
    assert tc.vocab == ["b", "a"]  # by decreasing frequency (b 4, a 2); c, d, e rare
    assert tc.tokens.tolist() == [0, 1, 0, 1, 0, 0]
    assert tc.doc_ptr.tolist() == [0, 3, 5, 6] and tc.doc_lengths.tolist() == [3, 2, 1]
    assert tc.word_count.tolist() == [4, 2] and tc.num_docs == 3
    assert tc.doc(1).tolist() == [1, 0] and tc.empty_docs().tolist() == []
    ties = preprocess(["z y x", "x y z"], whitespace_tokenize, min_freq=1, stop_words=None)
    assert ties.vocab == ["x", "y", "z"]  # equal counts: alphabetical


def test_tokenizer_key():
    # the built-ins' names, not their module paths: moving a function changes no cache key
    assert tokenizer_key(whitespace_tokenize) == "whitespace"
    assert tokenizer_key(textgcn_tokenize) == "textgcn"
    assert tokenizer_key(lambda s: s.split()) is None

    def local(text):
        return text.split()

    assert tokenizer_key(local) is None
    local.cache_key = "mine-v1"
    assert tokenizer_key(local) == "mine-v1"


def test_preprocess_with_given_vocabulary_and_prebuilt_index():
    import pandas as pd

    vocab = ["gamma", "alpha", "beta"]
    docs = ["alpha beta unknown", "gamma gamma", "nothing here", "beta"]
    plain = preprocess(docs, whitespace_tokenize, stop_words=None, vocab=vocab)
    indexed = preprocess(docs, whitespace_tokenize, stop_words=None, vocab=vocab,
                         vocab_index=pd.Index(vocab))
    for tc in (plain, indexed):
        assert tc.vocab == vocab
        assert tc.tokens.tolist() == [1, 2, 0, 0, 2]  # ids follow the given vocabulary
        assert tc.doc_ptr.tolist() == [0, 2, 4, 4, 5]
    with pytest.raises(ValueError, match="vocab_index has 2 words"):
        preprocess(docs, whitespace_tokenize, stop_words=None, vocab=vocab,
                   vocab_index=pd.Index(vocab[:2]))

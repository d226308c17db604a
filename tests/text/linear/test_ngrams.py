"""The baseline's n-gram features: hashed counts in worker processes."""

from __future__ import annotations

from gfbgcn.text.linear import ngrams
from tests.text.search.test_own_corpus import tiny_corpus


def test_hashing_in_worker_processes_gives_the_same_counts(monkeypatch):

    texts = tiny_corpus(90).texts
    serial = ngrams.hash_counts(texts, 2 ** 10, workers=1)
    monkeypatch.setattr(ngrams, "PARALLEL_ABOVE", 10)
    parallel = ngrams.hash_counts(texts, 2 ** 10, workers=2)
    assert parallel.shape == serial.shape == (90, 2 ** 10) and serial.nnz > 0
    assert (parallel != serial).nnz == 0


def _same(a, b) -> bool:
    """The same CSR arrays, entry order and index type included."""
    return a.shape == b.shape and a.indices.dtype == b.indices.dtype and all(
        (x == y).all() for x, y in ((a.indptr, b.indptr), (a.indices, b.indices), (a.data, b.data)))


def test_vocabulary_counts_in_worker_processes_are_the_serial_ones(monkeypatch):
    # uneven lengths, a share with no word n-gram at all (one-letter words), non-ASCII text
    texts = [*tiny_corpus(40).texts, "a b c d e f", "x y z", "Grüße aus Köln und Zürich",
             *tiny_corpus(30).texts[:7]]
    later = ["the market fell", "ein neues Wort", "q"]
    monkeypatch.setattr(ngrams, "PARALLEL_CHARS", 0)
    for analyzer, ranges in (("word", ngrams.WORD_NGRAMS), ("char_wb", ngrams.CHAR_NGRAMS)):
        vocab, serial = ngrams.count_block(texts, analyzer, ranges, None, workers=1)
        for workers in (2, 3):
            names, parallel = ngrams.count_block(texts, analyzer, ranges, None, workers)
            assert names == vocab and _same(parallel, serial) and serial.nnz > 0
            assert _same(ngrams.count_block(later, analyzer, ranges, vocab, workers)[1],
                         ngrams.count_block(later, analyzer, ranges, vocab, 1)[1])
    one_letter = ["a b", "c", "d e f", "g"]  # no word of two letters anywhere: no column
    for workers in (1, 2):
        names, counts = ngrams.count_block(one_letter, "word", ngrams.WORD_NGRAMS, None, workers)
        assert names == [] and counts.shape == (4, 0)


def test_the_features_do_not_depend_on_the_workers(monkeypatch):
    texts = tiny_corpus(60).texts
    serial, blocks = ngrams.NgramFeatures.fit(texts, hashed=False, workers=1)
    monkeypatch.setattr(ngrams, "PARALLEL_CHARS", 0)
    parallel, parallel_blocks = ngrams.NgramFeatures.fit(texts, hashed=False, workers=2)
    assert parallel.word_vocab == serial.word_vocab and parallel.char_vocab == serial.char_vocab
    assert (parallel.idf == serial.idf).all()
    assert all(_same(a, b) for a, b in zip(parallel_blocks, blocks))
    assert _same(parallel.transform(texts[:9], workers=2), serial.transform(texts[:9], 1))

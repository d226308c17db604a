"""The baseline's n-gram features: hashed counts in worker processes."""

from __future__ import annotations

from gfbgcn.text.predict import ngrams
from tests.text.search.test_own_corpus import tiny_corpus


def test_hashing_in_worker_processes_gives_the_same_counts(monkeypatch):

    texts = tiny_corpus(90).texts
    serial = ngrams.hash_counts(texts, 2 ** 10, workers=1)
    monkeypatch.setattr(ngrams, "PARALLEL_ABOVE", 10)
    parallel = ngrams.hash_counts(texts, 2 ** 10, workers=2)
    assert parallel.shape == serial.shape == (90, 2 ** 10) and serial.nnz > 0
    assert (parallel != serial).nnz == 0

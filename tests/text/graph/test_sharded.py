"""The sharded, multi-process graph build gives the single-process build's graph, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from gfbgcn.text.corpus.benchmarks import Corpus, load_benchmark
from gfbgcn.text.graph.text_graph import (
    GraphConfig,
    TextGraph,
    build_graph_from_counts,
    build_graph_from_tokens,
    build_text_graph,
)
from gfbgcn.text.tokenize.preprocess import preprocess, textgcn_tokenize
from gfbgcn.text.graph.sharded import count_corpus, shard_bounds
from gfbgcn.text.graph.window_pairs import SparseSum

from tests.text.toydata import toy_corpus


def reference_graph(corpus: Corpus, config: GraphConfig, tokenizer) -> TextGraph:
    tc = preprocess(corpus.texts, tokenizer, min_freq=config.min_freq,
                    stop_words=config.stop_words)
    return build_graph_from_tokens(tc, corpus, config, "ref")


def sharded_graph(corpus: Corpus, config: GraphConfig, tokenizer, workers: int,
                  shard_chars: int | None = None) -> TextGraph:
    counts = count_corpus(corpus.texts, tokenizer, min_freq=config.min_freq,
                          stop_words=config.stop_words, window=config.window,
                          cooccurrence=config.cooccurrence, workers=workers,
                          shard_chars=shard_chars)
    return build_graph_from_counts(counts, corpus, config, "ref")


def assert_same_graph(got: TextGraph, ref: TextGraph) -> None:
    assert got.vocab == ref.vocab
    np.testing.assert_array_equal(got.edge_index, ref.edge_index)
    np.testing.assert_array_equal(got.edge_weight, ref.edge_weight)  # exact, not approximate
    np.testing.assert_array_equal(got.idf, ref.idf)
    np.testing.assert_array_equal(got.word_count, ref.word_count)
    np.testing.assert_array_equal(got.doc_lengths, ref.doc_lengths)
    assert got.stats() == ref.stats()
    assert got.notes == ref.notes


@pytest.mark.realdata
def test_parallel_build_equals_single_process_build_on_r8(data_dir):
    corpus = load_benchmark("r8", data_dir)
    config = GraphConfig()
    # 2 workers over ~24 shards: the vocabulary, TF-IDF and PMI all cross shard boundaries
    got = sharded_graph(corpus, config, textgcn_tokenize, workers=2, shard_chars=200_000)
    ref = reference_graph(corpus, config, textgcn_tokenize)
    assert len(shard_bounds(corpus.texts, 2, 200_000)) > 10
    assert got.num_word_word > 1_000_000
    assert_same_graph(got, ref)


@pytest.mark.parametrize("mode", ["window", "pair"])
@pytest.mark.parametrize("workers, shard_chars", [(1, None), (2, 60), (3, 1)])
def test_sharding_does_not_change_the_graph(mode: str, workers: int, shard_chars):
    corpus = toy_corpus(n=60, vocab=25, seed=3)
    # an empty document and one made only of a stop word, in the middle of a shard
    corpus.texts[7] = ""
    corpus.texts[20] = "the the"
    config = GraphConfig(window=4, min_freq=2, stop_words="english", cooccurrence=mode)
    tokenizer = lambda text: text.split()  # noqa: E731 - forked workers need no pickling
    got = sharded_graph(corpus, config, tokenizer, workers, shard_chars)
    assert_same_graph(got, reference_graph(corpus, config, tokenizer))
    assert got.num_word_word > 0 and got.doc_lengths[7] == 0 and got.doc_lengths[20] == 0


def test_build_text_graph_workers_option_gives_the_same_graph():
    corpus = toy_corpus(n=50, seed=5)
    config = GraphConfig(window=3, min_freq=1, stop_words=None)
    one = build_text_graph(corpus, config, cache=False, workers=1)
    two = build_text_graph(corpus, config, cache=False, workers=2)
    assert_same_graph(two, one)
    assert_same_graph(one, reference_graph(corpus, config, textgcn_tokenize))


def test_shard_bounds_cover_every_document_once():
    texts = ["x" * n for n in (5, 0, 7, 3, 3, 10, 1)]
    bounds = shard_bounds(texts, workers=2, shard_chars=8)
    assert bounds[0] == 0 and bounds[-1] == len(texts)
    assert np.all(np.diff(bounds) > 0)
    assert len(bounds) > 2


def test_sparse_sum_equals_direct_sum():
    rng = np.random.default_rng(0)
    parts = [sp.random(30, 30, density=0.1, format="csr", random_state=rng) for _ in range(7)]
    total = SparseSum((30, 30))
    for p in parts:
        total.add(p)
    got = total.total()
    np.testing.assert_allclose(got.toarray(), sum(p.toarray() for p in parts))
    assert got.has_canonical_format

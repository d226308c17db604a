"""The SciPy-built normalised adjacency equals gcn_norm + coalesce, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch_geometric.nn.conv.gcn_conv import gcn_norm

from gfbgcn.text.corpus.benchmarks import load_benchmark
from gfbgcn.text.graph.adjacency import normalized_adjacency_csr
from gfbgcn.text.graph.text_graph import GraphConfig, build_text_graph
from tests.text.toydata import toy_corpus


def _reference(edge_index: torch.Tensor, edge_weight: torch.Tensor, n: int) -> torch.Tensor:
    ei, ew = gcn_norm(edge_index, edge_weight, n, add_self_loops=True)
    return torch.sparse_coo_tensor(ei, ew, (n, n)).coalesce().to_sparse_csr()


def _assert_same(got: torch.Tensor, ref: torch.Tensor) -> None:
    assert got.layout == torch.sparse_csr and got.shape == ref.shape
    assert torch.equal(got.crow_indices(), ref.crow_indices())
    assert torch.equal(got.col_indices(), ref.col_indices())
    assert torch.equal(got.values(), ref.values())  # exact, not approximate


def _check_graph(graph) -> None:
    data = graph.to_data()
    _assert_same(normalized_adjacency_csr(data.edge_index, data.edge_weight, data.num_nodes),
                 _reference(data.edge_index, data.edge_weight, data.num_nodes))


def test_equals_gcn_norm_on_a_toy_graph_with_an_isolated_document():
    corpus = toy_corpus(n=40, vocab=20, seed=2)
    corpus.texts[5] = ""  # a node with only its self-loop
    _check_graph(build_text_graph(corpus, GraphConfig(window=3, min_freq=1, stop_words=None),
                                  cache=False, workers=1))


@pytest.mark.realdata
def test_equals_gcn_norm_on_r8(data_dir):
    _check_graph(build_text_graph(load_benchmark("r8", data_dir), cache=False, workers=1))


def test_a_random_weighted_graph():
    rng = np.random.default_rng(0)
    n = 300
    pairs = np.unique(rng.integers(0, n, size=(2, 3000)), axis=1)
    pairs = pairs[:, pairs[0] < pairs[1]]
    edge_index = torch.from_numpy(np.concatenate([pairs, pairs[::-1]], axis=1))
    w = rng.random(pairs.shape[1]).astype(np.float32)
    edge_weight = torch.from_numpy(np.concatenate([w, w]))
    _assert_same(normalized_adjacency_csr(edge_index, edge_weight, n + 5),  # 5 isolated nodes
                 _reference(edge_index, edge_weight, n + 5))


def test_int32_indices_and_small_chunks_give_the_same_matrix(monkeypatch):
    import gfbgcn.text.graph.adjacency as adjacency

    corpus = toy_corpus(n=50, vocab=30, seed=4)
    graph = build_text_graph(corpus, GraphConfig(window=3, min_freq=1, stop_words=None),
                             cache=False, workers=1)
    data = graph.to_data()
    ref = _reference(data.edge_index, data.edge_weight, data.num_nodes)
    monkeypatch.setattr(adjacency, "CHUNK", 37)  # many chunks, a row split over several
    small = normalized_adjacency_csr(graph.edge_index.astype(np.int32), graph.edge_weight,
                                     graph.num_nodes, index_dtype=torch.int32)
    assert small.col_indices().dtype == small.crow_indices().dtype == torch.int32
    _assert_same(torch.sparse_csr_tensor(small.crow_indices().long(), small.col_indices().long(),
                                         small.values(), small.shape), ref)


def test_graph_adjacency_takes_int32_indices_where_they_fit_with_the_same_products(monkeypatch):
    import gfbgcn.text.graph.adjacency as adjacency
    from gfbgcn.nn.sparse import is_marked_symmetric, spmm

    corpus = toy_corpus(n=40, vocab=25, seed=2)
    graph = build_text_graph(corpus, GraphConfig(window=3, min_freq=1, stop_words=None),
                             cache=False, workers=1)
    auto = adjacency.graph_adjacency(graph)
    wide = adjacency.graph_adjacency(graph, torch.int64)
    assert auto.crow_indices().dtype == auto.col_indices().dtype == torch.int32
    assert is_marked_symmetric(auto)
    x = torch.randn(graph.num_nodes, 7, dtype=torch.float32, requires_grad=True)
    out32 = spmm(auto, x)
    (g32,) = torch.autograd.grad(out32.sum(), x)
    out64 = spmm(wide, x)
    (g64,) = torch.autograd.grad(out64.sum(), x)
    assert torch.equal(out32, out64) and torch.equal(g32, g64)
    # where the entries would not fit int32, the same call keeps int64
    monkeypatch.setattr(adjacency, "_INT32_MAX", 10)
    assert adjacency.graph_adjacency(graph).crow_indices().dtype == torch.int64

"""The Text GCN graph: PMI edges by hand, normalisation, masks, empty documents, the cache."""

from __future__ import annotations

import math
import numpy as np
import pytest
import torch

from gfbgcn.text.corpus.benchmarks import Corpus
from gfbgcn.text.graph.text_graph import GraphConfig, build_text_graph, normalized_adjacency
from gfbgcn.text.tokenize.preprocess import whitespace_tokenize


def test_pmi_hand_computed():
    # window 3: doc "x y z x" -> windows [x y z], [y z x]; doc "x w" -> one window [x w]
    corpus = Corpus("tiny", ["x y z x", "x w"], ["p", "q"], np.array([True, False]))
    cfg = GraphConfig(window=3, min_freq=1, stop_words=None)
    graph = build_text_graph(corpus, cfg, whitespace_tokenize, cache=False)
    vocab = {w: i for i, w in enumerate(graph.vocab)}
    n_docs = graph.num_docs
    weights = {
        (int(r), int(c)): float(w)
        for r, c, w in zip(graph.edge_index[0], graph.edge_index[1], graph.edge_weight)
    }
    total = 3  # windows
    w_x, w_y, w_w = 3, 2, 1
    # W(x, y) = 2 windows -> PMI = log(2 * 3 / (3 * 2)) = 0: not an edge (only positive PMI)
    assert (n_docs + vocab["x"], n_docs + vocab["y"]) not in weights
    # W(x, w) = 1 -> PMI = log(1 * 3 / (3 * 1)) = 0: no edge; W(y, z) = 2 -> log(2*3/(2*2)) > 0
    assert (n_docs + vocab["x"], n_docs + vocab["w"]) not in weights
    expected = math.log(2 * total / (w_y * 2))
    assert weights[(n_docs + vocab["y"], n_docs + vocab["z"])] == pytest.approx(expected, rel=1e-6)
    assert weights[(n_docs + vocab["z"], n_docs + vocab["y"])] == pytest.approx(expected, rel=1e-6)
    del w_x, w_w
    assert graph.num_windows == total


def test_normalisation_is_symmetric_with_unit_self_loops():
    corpus = Corpus(
        "tiny", ["a b c a b", "b c d", "a d d e", "e b"], list("pqpq"), np.array([1, 1, 1, 0], bool)
    )
    graph = build_text_graph(
        corpus, GraphConfig(window=3, min_freq=1, stop_words=None), whitespace_tokenize, cache=False
    )
    n = graph.num_nodes
    ei = torch.from_numpy(graph.edge_index)
    assert not (ei[0] == ei[1]).any(), "raw adjacency must not hold self-loops"
    a_hat = normalized_adjacency(ei, torch.from_numpy(graph.edge_weight), n).to_dense().double()
    torch.testing.assert_close(a_hat, a_hat.T)
    a = torch.zeros(n, n, dtype=torch.float64)
    a[ei[0], ei[1]] = torch.from_numpy(graph.edge_weight).double()
    a += torch.eye(n, dtype=torch.float64)
    deg = a.sum(1)
    torch.testing.assert_close(a_hat, a / deg.sqrt()[:, None] / deg.sqrt()[None, :], rtol=1e-5,
                               atol=1e-6)
    # D^-1/2 (A+I) D^-1/2 maps sqrt(deg) to sqrt(deg): "row sums" in the symmetric sense
    torch.testing.assert_close(a_hat @ deg.sqrt(), deg.sqrt(), rtol=1e-5, atol=1e-6)


def test_masks_are_disjoint_and_cover_documents():
    corpus = Corpus("tiny", [f"a b c{i % 3}" for i in range(40)], ["p", "q"] * 20,
                    np.arange(40) < 30)
    graph = build_text_graph(corpus, GraphConfig(min_freq=1, stop_words=None),
                             whitespace_tokenize, cache=False)
    data = graph.to_data(val_ratio=0.1, seed=3)
    masks = torch.stack([data.train_mask, data.val_mask, data.test_mask]).int()
    assert (masks.sum(0)[: graph.num_docs] == 1).all()
    assert (masks.sum(0)[graph.num_docs :] == 0).all()
    assert int(data.val_mask.sum()) == 3 and int(data.test_mask.sum()) == 10
    other = graph.to_data(val_ratio=0.1, seed=4)
    assert not torch.equal(data.val_mask, other.val_mask)


def test_empty_document_stays_a_node_with_only_its_self_loop():
    corpus = Corpus("tiny", ["the and of", "apple pear apple", "pear apple"], ["a", "b", "b"],
                    np.array([True, True, False]))
    graph = build_text_graph(corpus, GraphConfig(min_freq=1), cache=False)
    assert list(graph.empty_docs()) == [0]
    assert any("no token left" in note for note in graph.notes)
    assert not (graph.edge_index == 0).any()
    a_hat = normalized_adjacency(torch.from_numpy(graph.edge_index),
                                 torch.from_numpy(graph.edge_weight), graph.num_nodes)
    assert a_hat.to_dense()[0, 0] == pytest.approx(1.0)


def test_cache_hit_and_rebuild_on_change(tmp_path):
    corpus = Corpus("tiny", ["a b c a", "b c d", "c d a"], ["p", "q", "p"],
                    np.array([True, True, False]))
    cfg = GraphConfig(min_freq=1, stop_words=None)
    first = build_text_graph(corpus, cfg, whitespace_tokenize, cache_root=tmp_path)
    again = build_text_graph(corpus, cfg, whitespace_tokenize, cache_root=tmp_path)
    assert not first.from_cache and again.from_cache
    np.testing.assert_array_equal(first.edge_index, again.edge_index)
    np.testing.assert_array_equal(first.edge_weight, again.edge_weight)
    assert again.vocab == first.vocab and again.label_names == first.label_names
    changed_cfg = build_text_graph(corpus, GraphConfig(window=2, min_freq=1, stop_words=None),
                                   whitespace_tokenize, cache_root=tmp_path)
    assert not changed_cfg.from_cache
    edited = Corpus("tiny", ["a b c a", "b c d d", "c d a"], ["p", "q", "p"],
                    np.array([True, True, False]))
    assert not build_text_graph(edited, cfg, whitespace_tokenize, cache_root=tmp_path).from_cache
    assert len(list(tmp_path.glob("*.npz"))) == 3
    assert not list(tmp_path.glob("*.tmp")), "no temp files left behind"


def test_custom_tokenizer_is_pluggable():
    def chars(text: str) -> list[str]:  # e.g. a character segmenter for Chinese
        return [ch for ch in text if not ch.isspace()]

    chars.cache_key = "chars-v1"
    corpus = Corpus("zh", ["我爱北京", "北京欢迎你", "我爱你"], ["a", "b", "a"],
                    np.array([True, True, False]))
    graph = build_text_graph(corpus, GraphConfig(min_freq=1, stop_words=None), chars, cache=False)
    assert "北" in graph.vocab and graph.tokenizer == "chars-v1"

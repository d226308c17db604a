"""Text GCN graph: counts against hand computations and a brute-force reference."""

from __future__ import annotations

import math
from collections import Counter
from itertools import combinations

import numpy as np
import pytest
import torch

from gfbgcn.text.corpora import Corpus
from gfbgcn.text.graph import (
    GraphConfig,
    build_text_graph,
    normalized_adjacency,
    tfidf_matrix,
    window_counts,
)
from gfbgcn.text.preprocess import preprocess, whitespace_tokenize


def tokenized(docs: list[str]):
    return preprocess(docs, whitespace_tokenize, min_freq=1, stop_words=None)


def brute_force_counts(docs: list[list[str]], window: int, mode: str):
    """Loops over explicit windows, as the reference implementation does."""
    windows = []
    for words in docs:
        if len(words) <= window:
            windows.append(words)
        else:
            windows.extend(words[s : s + window] for s in range(len(words) - window + 1))
    single = Counter()
    pair = Counter()
    for win in windows:
        single.update(set(win))
        if mode == "window":
            for a, b in combinations(sorted(set(win)), 2):
                pair[(a, b)] += 1
                pair[(b, a)] += 1
        else:
            for i in range(1, len(win)):
                for j in range(i):
                    if win[i] != win[j]:
                        pair[(win[i], win[j])] += 1
                        pair[(win[j], win[i])] += 1
    return pair, single, len(windows)


def test_tfidf_hand_computed():
    tc = tokenized(["a a b", "b c", "c c c a"])
    tfidf, idf = tfidf_matrix(tc)
    vocab = {w: i for i, w in enumerate(tc.vocab)}
    # df: a=2, b=2, c=2 over D=3 documents
    assert idf[vocab["a"]] == pytest.approx(math.log(3 / 2))
    dense = tfidf.toarray()
    assert dense[0, vocab["a"]] == pytest.approx(2 * math.log(1.5))
    assert dense[2, vocab["c"]] == pytest.approx(3 * math.log(1.5))
    assert dense[1, vocab["a"]] == 0.0


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


@pytest.mark.parametrize("mode", ["window", "pair"])
@pytest.mark.parametrize("window", [2, 3, 5, 20])
def test_window_counts_match_brute_force(mode: str, window: int):
    rng = np.random.default_rng(window)
    words = [f"w{i}" for i in range(7)]
    docs = [
        [str(w) for w in rng.choice(words, size=n)]
        for n in (0, 1, 2, window - 1, window, window + 1, 3 * window + 2, 17)
    ]
    tc = tokenized([" ".join(d) for d in docs])
    pairs, singles, num_windows = window_counts(tc, window, mode)
    ref_pair, ref_single, ref_windows = brute_force_counts(docs, window, mode)
    assert num_windows == ref_windows
    vocab = tc.vocab
    for i, w in enumerate(vocab):
        assert singles[i] == ref_single[w], w
    dense = pairs.toarray()
    ref = np.zeros_like(dense)
    for (a, b), c in ref_pair.items():
        ref[vocab.index(a), vocab.index(b)] = c
    np.testing.assert_array_equal(dense, ref)


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

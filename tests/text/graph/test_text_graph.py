"""The Text GCN graph: PMI edges by hand, normalisation, masks, empty documents, the cache."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import torch

from gfbgcn.text.corpus.benchmarks import Corpus
from gfbgcn.text.graph import cache, text_graph
from gfbgcn.text.graph.adjacency import normalized_adjacency
from gfbgcn.text.graph.text_graph import GraphConfig, build_text_graph
from gfbgcn.text.tokenize.clean import whitespace_tokenize


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


def test_a_cache_of_the_previous_format_is_refused_and_rebuilt(tmp_path):
    """Format 1 did not align the edge weights; such a file is never read, but rebuilt."""
    corpus = Corpus("c", ["a b c", "b c d", "c d a"], ["x", "y", "x"], [True, True, False])
    cfg = GraphConfig(window=2, min_freq=1, stop_words=None)
    old = build_text_graph(corpus, cfg, whitespace_tokenize, cache_root=tmp_path)
    with np.load(old.cache_path) as z:  # rewritten as a file that says format 1, sealed
        arrays = {name: z[name] for name in z.files if name != "seal"}
    meta = json.loads(str(arrays.pop("meta")))
    meta["format"] = 1
    with open(old.cache_path, "wb") as fh:
        cache.savez_converted(fh, {}, aligned=("edge_weight",), meta=np.array(json.dumps(meta)),
                              **arrays)
    cache.seal(old.cache_path, old.key)
    with pytest.raises(ValueError, match=r"^graph format 1, this gfbgcn reads format 2$"):
        text_graph.load_graph_file(old.cache_path, old.key)
    with pytest.warns(UserWarning, match="graph format 1, this gfbgcn reads format 2"):
        again = build_text_graph(corpus, cfg, whitespace_tokenize, cache_root=tmp_path)
    assert not again.from_cache and again.cache_path == old.cache_path
    assert build_text_graph(corpus, cfg, whitespace_tokenize, cache_root=tmp_path).from_cache


def test_custom_tokenizer_is_pluggable():
    def chars(text: str) -> list[str]:  # e.g. a character segmenter for Chinese
        return [ch for ch in text if not ch.isspace()]

    chars.cache_key = "chars-v1"
    corpus = Corpus("zh", ["我爱北京", "北京欢迎你", "我爱你"], ["a", "b", "a"],
                    np.array([True, True, False]))
    graph = build_text_graph(corpus, GraphConfig(min_freq=1, stop_words=None), chars, cache=False)
    assert "北" in graph.vocab and graph.tokenizer == "chars-v1"


def test_to_pyg_trains_a_pyg_model():
    """A PyG user's own two-layer ``GCNConv`` model learns the toy topics from ``to_pyg()``."""
    from torch_geometric.data import Data
    from torch_geometric.nn import GCNConv

    from tests.text.toydata import topic_documents

    texts, labels = topic_documents(45)
    corpus = Corpus("topics", texts, labels, np.arange(45) < 36)
    graph = build_text_graph(corpus, GraphConfig(window=4, min_freq=1, stop_words=None),
                             whitespace_tokenize, cache=False)
    data = graph.to_pyg(val_ratio=0.2, seed=0)
    assert isinstance(data, Data)
    d, n = graph.num_docs, graph.num_nodes
    assert data.edge_index.shape == (2, len(graph.edge_weight)) and data.y.shape == (n,)
    assert data.edge_weight.dtype == torch.float32 and bool((data.y[d:] == -1).all())
    assert int(data.train_mask.sum()) + int(data.val_mask.sum()) == 36
    assert int(data.test_mask.sum()) == 9 and not data.train_mask[d:].any()
    torch.manual_seed(0)
    conv1, conv2 = GCNConv(n, 16), GCNConv(16, len(graph.label_names))
    x = torch.eye(n)  # Text GCN's identity input
    params = [*conv1.parameters(), *conv2.parameters()]
    optimizer = torch.optim.Adam(params, lr=0.05)

    def logits() -> torch.Tensor:
        h = conv1(x, data.edge_index, data.edge_weight).relu()
        return conv2(h, data.edge_index, data.edge_weight)

    losses = []
    for _ in range(30):
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(logits()[data.train_mask],
                                                 data.y[data.train_mask])
        loss.backward()
        optimizer.step()
        losses.append(float(loss))
    assert losses[-1] < 0.5 * losses[0]
    with torch.no_grad():
        pred = logits().argmax(1)
    assert float((pred[data.test_mask] == data.y[data.test_mask]).float().mean()) >= 0.8


def test_to_pyg_gives_unlabeled_documents_label_minus_one_and_no_mask():
    corpus = Corpus("u", ["a b", "b c", "c a", "a c"], ["x", "y", "x", "x"],
                    np.array([True, True, False, False]))
    graph = build_text_graph(corpus, GraphConfig(window=2, min_freq=1, stop_words=None),
                             whitespace_tokenize, cache=False)
    labelled = graph.to_pyg(val_ratio=0.5, seed=0)
    assert labelled.y[:4].tolist() == [0, 1, 0, 0] and labelled.test_mask[:4].tolist() == [
        False, False, True, True]
    graph.unlabeled = np.array([False, False, False, True])  # the last one has no label
    data = graph.to_pyg(val_ratio=0.5, seed=0)
    assert data.y[:4].tolist() == [0, 1, 0, -1]
    assert not (data.train_mask[3] or data.val_mask[3] or data.test_mask[3])
    assert data.test_mask[:4].tolist() == [False, False, True, False]
    assert torch.equal(data.train_mask, labelled.train_mask)  # the split is unchanged
    # training reads the same masks: the test documents it scores are the labelled ones
    assert torch.equal(graph.to_data(0.5, 0).test_mask, data.test_mask)
    assert graph.labelled_test().tolist() == [2]


def test_the_corpus_flags_its_unlabelled_documents_in_a_built_or_cached_graph(tmp_path):
    corpus = Corpus("u", ["a b", "b c", "c a", "a c"], ["x", "y", "x", "x"],
                    np.array([True, True, False, False]),
                    unlabeled=np.array([False, False, False, True]))
    config = GraphConfig(window=2, min_freq=1, stop_words=None)
    built = build_text_graph(corpus, config, whitespace_tokenize, cache_root=tmp_path)
    cached = build_text_graph(corpus, config, whitespace_tokenize, cache_root=tmp_path)
    assert cached.from_cache and not built.from_cache
    for graph in (built, cached):
        assert graph.unlabeled.tolist() == [False, False, False, True]
        assert graph.to_data(0.5, 0).y[:4].tolist() == [0, 1, 0, -1]
    plain = Corpus("u", corpus.texts, corpus.labels, corpus.is_train)  # the same cache key
    assert build_text_graph(plain, config, whitespace_tokenize, cache_root=tmp_path
                            ).unlabeled is None


def test_a_built_graph_holds_int32_node_ids_as_its_cache_does():
    """The build's largest array in half the bytes (what a graph read from the cache holds
    too); int64 only past 2**31 - 1 nodes."""
    from gfbgcn.text.graph.edges import node_id_dtype

    corpus = Corpus("ids", ["a b c", "b c d", "c d e", "d e a"], ["x", "y", "x", "y"],
                    np.array([True, True, True, False]))
    graph = build_text_graph(corpus, GraphConfig(min_freq=1, stop_words=None),
                             whitespace_tokenize, cache=False)
    assert graph.edge_index.dtype == np.int32
    assert node_id_dtype(2**31 - 1) is np.int32 and node_id_dtype(2**31) is np.int64


def test_to_pyg_defaults_to_the_graphs_own_split():
    """``val_ratio`` and ``seed`` not given: the graph's (set by ``fit`` and ``build_graph``
    to the run's), so that the masks are the split training used."""
    corpus = Corpus("s", [f"a b c{i}" for i in range(20)], ["x", "y"] * 10, np.arange(20) < 16)
    graph = build_text_graph(corpus, GraphConfig(window=2, min_freq=1, stop_words=None),
                             whitespace_tokenize, cache=False)
    assert (graph.val_ratio, graph.seed) == (0.1, 0)
    assert torch.equal(graph.to_pyg().val_mask, graph.to_data(0.1, 0).val_mask)
    graph.val_ratio, graph.seed = 0.25, 9
    assert torch.equal(graph.to_pyg().val_mask, graph.to_data(0.25, 9).val_mask)
    assert int(graph.to_pyg().val_mask.sum()) == 4
    assert torch.equal(graph.to_pyg(0.5, 1).val_mask, graph.to_data(0.5, 1).val_mask)


def docstring_code(obj: object) -> str:
    """The code block (after ``::``) of ``obj``'s docstring, dedented."""
    import inspect
    import textwrap

    doc = inspect.getdoc(obj) or ""
    block = doc.split("::\n", 1)[1]
    lines = []
    for line in block.splitlines():
        if line and not line.startswith(" "):
            break
        lines.append(line)
    return textwrap.dedent("\n".join(lines))


def test_to_pyg_docstring_example_runs_and_matches_edge_index():
    """The sparse-adjacency example of ``to_pyg``'s docstring runs as written, and its output
    is what the same layers give on ``edge_index``/``edge_weight``."""
    from torch_geometric.nn import GCNConv

    from tests.text.toydata import topic_documents

    texts, labels = topic_documents(30)
    corpus = Corpus("topics", texts, labels, np.arange(30) < 24)
    graph = build_text_graph(corpus, GraphConfig(window=4, min_freq=1, stop_words=None),
                             whitespace_tokenize, cache=False)
    namespace: dict = {"graph": graph}
    torch.manual_seed(0)
    exec(docstring_code(text_graph.TextGraph.to_pyg), namespace)  # noqa: S102 - our own text
    out = namespace["out"]
    assert out.shape == (graph.num_nodes, len(graph.label_names))
    data = graph.to_pyg()
    torch.manual_seed(0)
    embedding = torch.nn.Embedding(data.num_nodes, 200)
    conv1, conv2 = GCNConv(200, 200), GCNConv(200, len(graph.label_names))
    hidden = conv1(embedding.weight, data.edge_index, data.edge_weight).relu()
    torch.testing.assert_close(out, conv2(hidden, data.edge_index, data.edge_weight),
                               rtol=1e-4, atol=1e-5)

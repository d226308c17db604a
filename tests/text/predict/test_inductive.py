"""Inductive prediction: the formulas reproduce the transductive model exactly on its own graph."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
import torch

from gfbgcn.text.graph.text_graph import GraphConfig, build_text_graph, normalized_adjacency
from gfbgcn.text.predict.inductive import (
    InductiveTextGCN,
    NoKnownWordsWarning,
    node_degrees,
    predict_texts,
)
from gfbgcn.text.train.models import SECOND_LAYERS, build_text_model
from gfbgcn.text.tokenize.preprocess import whitespace_tokenize

from tests.text.toydata import toy_corpus


@pytest.fixture(scope="module")
def toy():
    corpus = toy_corpus(classes="012")
    graph = build_text_graph(corpus, GraphConfig(window=3, min_freq=1, stop_words=None),
                             whitespace_tokenize, cache=False)
    adj = normalized_adjacency(torch.from_numpy(graph.edge_index),
                               torch.from_numpy(graph.edge_weight), graph.num_nodes)
    return corpus, graph, adj


def graph_doc_word(graph) -> sp.csr_matrix:
    n = graph.num_nodes
    a = sp.csr_matrix((graph.edge_weight.astype(np.float64), (graph.edge_index[0],
                       graph.edge_index[1])), shape=(n, n))
    return a[: graph.num_docs, graph.num_docs:].tocsr()


@pytest.mark.parametrize("name", SECOND_LAYERS)
def test_reproduces_transductive_output_on_training_graph(toy, name):
    """With a graph document's own weights, degrees and W1 row the formulas are exact."""
    _, graph, adj = toy
    torch.manual_seed(0)
    model = build_text_model(name, graph.num_nodes, 3, hidden=16).eval()
    with torch.no_grad():
        full = model(adj)[: graph.num_docs]
    pred = InductiveTextGCN.from_trained(model, graph, name, adj=adj)
    assert pred.model_name == name
    out = pred.logits_from_weights(graph_doc_word(graph),
                                   self_rows=model.w1.detach()[: graph.num_docs])
    torch.testing.assert_close(out, full, rtol=1e-5, atol=1e-6)


def test_doc_word_weights_match_graph_builder(toy):
    corpus, graph, adj = toy
    model = build_text_model("gcn", graph.num_nodes, 3, hidden=8)
    pred = InductiveTextGCN.from_trained(model, graph, "gcn", adj=adj)
    diff = pred.doc_word_weights(corpus.texts) - graph_doc_word(graph)
    assert abs(diff).max() < 1e-5  # graph weights are float32
    np.testing.assert_allclose(pred.deg_words.numpy(), node_degrees(graph)[graph.num_docs:],
                               rtol=1e-6)


def test_unknown_words_ignored_batching_and_self_embedding(toy):
    _, graph, adj = toy
    torch.manual_seed(1)
    model = build_text_model("gfb-max", graph.num_nodes, 3, hidden=8).eval()
    pred = InductiveTextGCN.from_trained(model, graph, "gfb-max", adj=adj)
    texts = ["w1 w2 w3", "w1 zzz w2 yyy w3", "w4 w4 w5", "w7"]
    p_all = pred.predict_proba(texts)
    p_one = pred.predict_proba(texts, batch_size=1)
    np.testing.assert_allclose(p_all, p_one, rtol=1e-6)
    np.testing.assert_allclose(p_all[0], p_all[1], rtol=1e-6)
    np.testing.assert_allclose(p_all.sum(1), 1.0, rtol=1e-6)
    assert pred.predict(texts).labels == [graph.label_names[j] for j in p_all.argmax(1)]
    mean = InductiveTextGCN.from_trained(model, graph, "gfb-max", adj=adj,
                                         self_embedding="mean")
    assert mean.predict_proba(texts).shape == p_all.shape
    top = pred.predict(texts).top_k(2)
    assert len(top) == 4 and len(top[0]) == 2 and top[0][0][1] >= top[0][1][1]


def test_no_known_word_gets_prior_with_warning(toy):
    _, graph, adj = toy
    model = build_text_model("gcn", graph.num_nodes, 3, hidden=8).eval()
    pred = InductiveTextGCN.from_trained(model, graph, "gcn", adj=adj)
    with pytest.warns(NoKnownWordsWarning, match="no word of the model's vocabulary"):
        out = pred.predict(["", "unknown words only", "w1 w2"])
    prior = np.bincount(graph.labels[graph.is_train], minlength=3) / graph.is_train.sum()
    np.testing.assert_allclose(out.probabilities[0], prior)
    np.testing.assert_allclose(out.probabilities[1], prior)
    assert out.no_known_words.tolist() == [True, True, False]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        empty = pred.predict([])
    assert empty.labels == [] and empty.probabilities.shape == (0, 3)


def test_one_megabyte_document(toy):
    _, graph, adj = toy
    model = build_text_model("gfb-max", graph.num_nodes, 3, hidden=8).eval()
    pred = InductiveTextGCN.from_trained(model, graph, "gfb-max", adj=adj)
    rng = np.random.default_rng(0)
    words = np.array([f"w{i}" for i in range(30)] + ["unknown"])
    big = " ".join(rng.choice(words, size=300_000))
    assert len(big) > 1_000_000
    out = pred.predict([big, "w1"])
    assert np.isfinite(out.probabilities).all()
    np.testing.assert_allclose(out.probabilities.sum(1), 1.0, rtol=1e-6)


@pytest.mark.parametrize("name", ["sgc", "gin"])
def test_whole_models_not_supported(toy, name):
    _, graph, adj = toy
    model = build_text_model(name, graph.num_nodes, 3, hidden=8)
    with pytest.raises(NotImplementedError, match="two-layer"):
        InductiveTextGCN.from_trained(model, graph, name, adj=adj)


def test_predict_texts_and_the_snapshot_of_the_second_layer(toy):
    _, graph, adj = toy
    torch.manual_seed(2)
    model = build_text_model("gfb-max", graph.num_nodes, 3, hidden=8).eval()
    texts = ["w1 w2 w3", "w4 w5"]
    pred = InductiveTextGCN.from_trained(model, graph, "gfb-max", adj=adj)
    once = predict_texts(model, graph, "gfb-max", texts, adj=adj)
    np.testing.assert_array_equal(once.probabilities, pred.predict_proba(texts))
    assert once.labels == pred.predict(texts).labels and len(once) == 2
    with torch.no_grad():  # later changes to the model do not leak into the predictor
        model.conv2.lam.fill_(5.0)
    np.testing.assert_array_equal(pred.predict_proba(texts), once.probabilities)
    with pytest.raises(ValueError, match="self_embedding"):
        InductiveTextGCN.from_trained(model, graph, "gfb-max", adj=adj, self_embedding="max")


@pytest.mark.realdata
def test_inductive_on_real_r8_subset_beats_majority(data_dir):
    """Graph from 240 R8 training documents only; 60 unseen test documents predicted."""
    from gfbgcn.text.corpus.benchmarks import load_benchmark
    from gfbgcn.text.train.full_batch import TrainConfig, train_text

    corpus = load_benchmark("r8", data_dir)
    rng = np.random.default_rng(0)
    train = rng.choice(np.flatnonzero(corpus.is_train), 240, replace=False)
    test = rng.choice(np.flatnonzero(~corpus.is_train), 60, replace=False)
    graph = build_text_graph(corpus.subset(train, name="r8-240-train"))
    assert graph.is_train.all()
    result = train_text(graph, TrainConfig(model="gcn", epochs=40, seed=1), progress=False)
    pred = InductiveTextGCN.from_trained(result.model, graph, "gcn").predict(
        [corpus.texts[i] for i in test])
    truth = np.array([corpus.labels[i] for i in test])
    majority = max(np.mean(truth == lab) for lab in set(truth))
    assert np.mean(np.array(pred.labels) == truth) > majority + 0.05

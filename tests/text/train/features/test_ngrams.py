"""N-gram document input features (``features="ngram"``): the capped featuriser, training on
them full batch and mini-batch, inductive prediction, save/load, the estimator, the command
line and ``--auto``'s stage 3."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
import torch

from gfbgcn import TextGCNClassifier
from gfbgcn.core.errors import OptionError
from gfbgcn.nn.models import FeatureTextGCN
from gfbgcn.nn.sparse import csr_rows
from gfbgcn.text.graph.adjacency import graph_adjacency, normalized_adjacency
from gfbgcn.text.graph.text_graph import GraphConfig, build_text_graph
from gfbgcn.text.linear import ngrams as ngram_module
from gfbgcn.text.linear.baseline import fit_baseline, graph_split
from gfbgcn.text.linear.ngrams import NgramFeatures
from gfbgcn.text.predict.inductive import InductiveTextGCN
from gfbgcn.text.predict.saved import load_model, read_config, save_trained
from gfbgcn.text.tokenize.clean import whitespace_tokenize
from gfbgcn.text.train.config import TrainConfig
from gfbgcn.text.train.features import ngrams as ni
from gfbgcn.text.train.features.inputs import DocInput, node_features
from gfbgcn.text.train.features.wordllama import doc_word_weights
from gfbgcn.text.train.minibatch import _BatchForward
from gfbgcn.text.train.run import train_text
from gfbgcn.text.train.sampler import SubgraphSampler, local_columns
from tests.text.search.test_own_corpus import tiny_corpus, write_csv
from tests.text.toydata import NEW_DOCS, features_cli_round_trip, toy_corpus


def _graph(corpus):
    return build_text_graph(corpus, GraphConfig(window=3, min_freq=1, stop_words=None),
                            whitespace_tokenize, cache=False)


@pytest.fixture(scope="module")
def trained():
    corpus = toy_corpus()
    graph = _graph(corpus)
    inputs = ni.ngram_input(corpus.texts, graph, max_features=60, max_df=1.0)
    config = TrainConfig(model="gfb-max", epochs=6, hidden=8, seed=0, features="ngram",
                         layer_options={"exact": True})
    return corpus, graph, inputs, train_text(graph, config, progress=False, doc_input=inputs)


def test_cap_keeps_the_ngrams_of_most_training_documents():
    texts = ["aa ab", "aa ac", "aa ab zz", "qq"]
    fitted, blocks = NgramFeatures.fit(texts[:3], hashed=False)
    capped, columns = ni.capped_columns(fitted, blocks, 4, max_df=1.0)
    cut = ni.cut_columns(blocks, columns)
    df = np.concatenate([np.bincount(b.indices, minlength=b.shape[1]) for b in blocks])
    names = (fitted.word_vocab or []) + (fitted.char_vocab or [])
    kept = (capped.word_vocab or []) + (capped.char_vocab or [])
    # the four n-grams in the most documents, ties to the earlier column (the word block first)
    expected = [names[i] for i in sorted(np.argsort(-df, kind="stable")[:4])]
    assert kept == expected and capped.word_vocab == ["aa"]  # "ab" is in 2 of 3 documents
    assert capped.num_features == 4 == sum(b.shape[1] for b in cut)
    assert np.array_equal(capped.idf, fitted.idf[[names.index(t) for t in kept]])
    # the kept columns are a featuriser of their own: counts cut == counts recomputed
    again = capped.counts(texts[:3])
    assert all((a != b).nnz == 0 for a, b in zip(again, cut))
    # max_df: n-grams in more than that share of the documents are not kept at all
    rare, _ = ni.capped_columns(fitted, blocks, 1000, max_df=0.5)
    kept = (rare.word_vocab or []) + (rare.char_vocab or [])
    assert "ab" not in kept and "aa" not in kept and "zz" in kept
    assert len(kept) == int((df <= 1).sum())


def test_rows_come_from_the_training_split_only():
    corpus = toy_corpus()
    texts = list(corpus.texts)
    texts[-1] = "onlyintest " + texts[-1]  # a test document's word: no column of its own
    fit = np.flatnonzero(corpus.is_train)
    ngrams, rows = ni.fit_input_ngrams(texts, fit, max_features=10_000, max_df=1.0)
    assert "onlyintest" not in (ngrams.word_vocab or [])
    assert rows.shape == (len(texts), ngrams.num_features)
    # every row, training or not, is what the featuriser gives its text
    assert abs(rows - ngrams.transform(texts)).max() == 0
    lengths = [sp.linalg.norm(rows[i, :len(ngrams.word_vocab or [])]) for i in fit]
    assert np.allclose(lengths, 1.0)  # each block L2-normalised over its kept columns


def test_ngram_input_rows_are_the_documents_then_empty_word_rows():
    corpus = toy_corpus()
    graph = _graph(corpus)
    inputs = ni.ngram_input(corpus.texts, graph, max_features=50, max_df=1.0)
    assert inputs.seconds > 0
    f = node_features(graph, "ngram", inputs)
    assert f is not None and f.layout == torch.sparse_csr
    assert f.shape == (graph.num_nodes, 50)
    dense = f.to_dense()
    assert torch.equal(dense[graph.num_docs:], torch.zeros(graph.num_words, 50))
    assert np.allclose(dense[:graph.num_docs].numpy(), inputs.rows.toarray(), atol=1e-7)
    # the TF-IDF rows of the training split's capped vocabulary, times the scale
    ngrams, plain = ni.fit_input_ngrams(corpus.texts, np.flatnonzero(graph.is_train), 50, 1.0)
    assert inputs.source.ngrams.word_vocab == ngrams.word_vocab
    assert abs(inputs.rows - ni.FEATURE_SCALE * plain).max() < 1e-15
    with pytest.raises(ValueError, match="doc_input"):
        node_features(graph, "ngram")
    with pytest.raises(ValueError, match="doc_input"):
        node_features(graph, "ngram", DocInput(inputs.rows[:3]))


def test_the_baselines_counts_give_the_same_input_without_fitting_again(monkeypatch):
    corpus = toy_corpus()
    graph = _graph(corpus)
    split = graph_split(graph, 0.2, 0)
    base = fit_baseline(corpus.texts, graph.labels, graph.label_names, split["train"],
                        split["val"], split["test"], keep_counts=True)
    counts = base.take_counts()
    assert counts is not None and base.fit_counts is None  # released once taken
    # the baseline fits on training then validation rows: not the graph's order
    assert not np.array_equal(counts.rows, np.sort(counts.rows))
    plain = ni.ngram_input(corpus.texts, graph, max_features=50, max_df=1.0)
    assert fit_baseline(corpus.texts, graph.labels, graph.label_names, split["train"],
                        split["val"], split["test"]).fit_counts is None  # kept only if asked

    def no_fit(*args, **kwargs):
        raise AssertionError("fitted again")

    def no_count(*args, **kwargs):
        raise AssertionError("counted again")

    monkeypatch.setattr(NgramFeatures, "fit", no_fit)
    monkeypatch.setattr(NgramFeatures, "counts", no_count)  # the test rows: the baseline's
    assert counts.rest is not None and np.array_equal(counts.rest, np.sort(split["test"]))
    shared = ni.ngram_input(corpus.texts, graph, max_features=50, max_df=1.0, counts=counts)
    assert shared.source.ngrams.word_vocab == plain.source.ngrams.word_vocab
    assert shared.source.ngrams.char_vocab == plain.source.ngrams.char_vocab
    assert np.array_equal(shared.source.ngrams.idf, plain.source.ngrams.idf)
    for name in ("data", "indices", "indptr"):  # the same matrix, entry for entry
        assert np.array_equal(getattr(shared.rows, name), getattr(plain.rows, name))
    # and the baseline's test probabilities from its kept counts are those of its texts
    test = np.sort(split["test"])
    monkeypatch.undo()
    np.testing.assert_array_equal(base.probabilities[test],
                                  base.model.predict_proba([corpus.texts[i] for i in test]))
    with pytest.raises(ValueError, match="other documents"):
        counts.in_order(np.arange(3))


def test_bad_combinations_are_refused_naming_the_parameter(monkeypatch):
    with pytest.raises(OptionError, match="^features ngram applies to the two-layer"):
        TrainConfig(model="sgc", features="ngram")
    with pytest.raises(OptionError, match="gin"):
        TrainConfig(model="gin", features="ngram")
    TrainConfig(batch_size=8, features="ngram")  # mini-batch is supported
    monkeypatch.setattr(ngram_module, "HASH_ABOVE", 5)  # the scale threshold (ngrams.needs_hashing)
    assert not ni.ngram_fits(toy_corpus().texts, np.arange(10))
    with pytest.raises(OptionError, match="^features ngram: the training split is too large"):
        ni.fit_input_ngrams(toy_corpus().texts, np.arange(10))


def test_inductive_reproduces_the_transductive_logits(trained):
    corpus, graph, inputs, result = trained
    model = result.model.eval()
    assert isinstance(model, FeatureTextGCN) and model.source is inputs.source
    ind = InductiveTextGCN.from_trained(model, graph, "gfb-max")
    adj = normalized_adjacency(torch.from_numpy(graph.edge_index),
                               torch.from_numpy(graph.edge_weight), graph.num_nodes)
    d = graph.num_docs
    with torch.no_grad():
        full = model(adj)[:d]
        own = model.input_weight()[:d]  # W1[d] + F_d W2 of every training-graph document
        again = ind.logits_from_weights(doc_word_weights(graph), self_rows=own)
        # default: W1[d] unknown (zero), the n-gram part F_d W2 computed from the text
        default = ind.logits_from_weights(doc_word_weights(graph), texts=corpus.texts)
        feature_only = ind.logits_from_weights(doc_word_weights(graph),
                                               self_rows=own - model.w1[:d])
    assert torch.allclose(again, full, atol=1e-5)
    assert torch.allclose(default, feature_only, atol=1e-5)
    with pytest.raises(ValueError, match="texts"):
        ind.logits_from_weights(doc_word_weights(graph))


def test_saved_model_recomputes_training_rows_and_predicts_the_same(trained, tmp_path):
    corpus, graph, inputs, result = trained
    before = InductiveTextGCN.from_trained(result.model, graph, "gfb-max")
    path = save_trained(tmp_path / "m", result, graph, corpus)
    config = read_config(path)
    assert config["features"]["kind"] == "ngram" and config["train"]["features"] == "ngram"
    assert config["shapes"]["feature_w2"] == [60, 8]
    loaded = load_model(path)
    assert isinstance(loaded.features, ni.NgramDocFeatures)
    # a training document's row, recomputed from its text by the saved vocabulary and IDF
    for d in (0, 7, graph.num_docs - 1):
        row = loaded.features.rows([corpus.texts[d]])
        assert (row != inputs.rows[d]).nnz == 0
    docs = NEW_DOCS + list(corpus.texts[:5])
    assert np.array_equal(loaded.predict_proba(docs), before.predict_proba(docs))
    # a missing tensor is refused by name
    tensors = {k: v for k, v in loaded.features.tensors().items() if k != "feature_idf"}
    with pytest.raises(ValueError, match="feature_idf"):
        ni.NgramDocFeatures.from_saved(tensors, config["features"], 8)


def test_minibatch_training_with_ngram_features():
    corpus = toy_corpus(60)
    graph = _graph(corpus)
    inputs = ni.ngram_input(corpus.texts, graph, max_features=40, max_df=1.0)
    for optimizer in ("adam", "sparse-adam"):
        config = TrainConfig(model="gcn", epochs=3, hidden=8, seed=0, features="ngram",
                             batch_size=16, fanout=4, optimizer=optimizer)
        result = train_text(graph, config, progress=False, doc_input=inputs)
        assert isinstance(result.model, FeatureTextGCN)
        assert result.model.w2.abs().sum() > 0 and np.isfinite(result.probabilities).all()
        ind = InductiveTextGCN.from_trained(result.model, graph, "gcn")
        assert ind.predict_proba(NEW_DOCS[:2]).shape == (2, 3)
    # a step reads F W2 at its rows' columns only: the same logits as over every node
    model = result.model.eval()
    sampler = SubgraphSampler(graph_adjacency(graph), 4, seed=0)
    rows2, needed = sampler.batch_rows(torch.arange(6))
    rows1 = csr_rows(sampler.presample(step=1), needed)
    local, columns = local_columns(rows1)
    with torch.no_grad():
        for sparse in (False, True):
            step = _BatchForward(model, sparse)
            assert torch.allclose(step(local, rows2, columns), step(rows1, rows2), atol=1e-6)


def test_estimator_and_command_line_train_and_predict_with_ngram_features(tmp_path, capsys):
    corpus = tiny_corpus()
    train = np.flatnonzero(corpus.is_train)
    clf = TextGCNClassifier(features="ngram", min_freq=1, hidden=8, epochs=5, cache=False,
                            baseline=False, verbose=0)
    clf.fit([corpus.texts[i] for i in train], [corpus.labels[i] for i in train])
    assert isinstance(clf.result_.model, FeatureTextGCN) and clf.result_.model.sparse_features
    assert clf.predict(["Gol tekma liga", corpus.texts[0]]).shape == (2,)
    path = tmp_path / "own.csv"
    write_csv(corpus, path)
    err = features_cli_round_trip(tmp_path, capsys, path, "ngram")
    assert len(err.splitlines()) == 1 and "--features ngram" in err and "two-layer" in err


def test_auto_tries_the_best_graph_model_with_ngram_features():
    from gfbgcn.text.search.auto import Budget, run_auto
    from gfbgcn.text.tokenize.registry import UnicodeTokenizer

    base = TrainConfig(seed=0, epochs=6, hidden=8, patience=3)
    auto = run_auto(tiny_corpus(40), UnicodeTokenizer(), base, budget=Budget(), cache=False,
                    log=lambda _: None)
    graph_only = [c for c in auto.candidates if c.predictor == "graph"]
    ngram = [c for c in graph_only if c.features == "ngram"]
    assert len(ngram) == 1 and ngram[0].seconds > 0
    best = max((c for c in graph_only if c.features == "onehot"),
               key=lambda c: c.val_accuracy)  # max keeps the first on ties, as the search
    assert (ngram[0].setting, ngram[0].model, ngram[0].fast) == \
        (best.setting, best.model, best.fast)
    combined = [c for c in auto.candidates if c.predictor == "graph+linear"
                and c.features == "ngram"]
    assert len(combined) == 1


def test_auto_skips_ngram_features_on_a_corpus_too_large_for_them(monkeypatch):
    from gfbgcn.text.search import auto as auto_mod
    from gfbgcn.text.tokenize.registry import UnicodeTokenizer

    monkeypatch.setattr(ngram_module, "HASH_ABOVE", 5)  # the scale threshold (ngrams.needs_hashing)
    base = TrainConfig(seed=0, epochs=3, hidden=8, patience=2)
    lines: list[str] = []
    result = auto_mod.run_auto(tiny_corpus(40), UnicodeTokenizer(), base,
                               budget=auto_mod.Budget(), cache=False, log=lines.append)
    assert all(c.features != "ngram" for c in result.candidates if c.predictor != "linear")
    # and says so in one line
    assert sum(line.startswith("auto: skipping the n-gram-features candidate: the training "
                               "split is too large") for line in lines) == 1

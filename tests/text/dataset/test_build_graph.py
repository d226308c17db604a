"""``gfbgcn.build_graph``: the graph of documents, a corpus file or a benchmark, as training
builds it (same settings, same cache key), without training; bad input in one line."""

from __future__ import annotations

import os

import numpy as np
import pytest
import torch

import gfbgcn
from gfbgcn import TextGCNClassifier
from gfbgcn.cli import main
from gfbgcn.core.errors import InputError, OptionError, UserError
from gfbgcn.text.corpus.benchmarks import load_corpus
from gfbgcn.text.dataset.build_graph import GRAPH_PARAMETERS, build_graph
from tests.text.estimator.toyfit import FAST, toy_split
from tests.text.toydata import write_topic_csv

GRAPH = {"min_freq": 1, "stop_words": None}  # FAST's graph settings


def _same_data(a, b) -> None:
    for name in ("edge_index", "edge_weight", "y", "train_mask", "val_mask", "test_mask"):
        assert torch.equal(getattr(a, name), getattr(b, name)), name


def test_the_graph_parameters_are_the_classifiers_graph_group():
    assert GRAPH_PARAMETERS == ("window", "min_freq", "stop_words", "cooccurrence",
                                "tokenizer", "no_numbers", "cjk_split", "cache",
                                "build_workers")


def test_documents_give_the_graph_fit_trains_on_from_the_same_cache(tmp_path, monkeypatch):
    """Same key, the classifier finds build_graph's cache file, and ``to_pyg()`` of both holds
    the same masks, the split of ``random_state`` (and -1 for the unlabeled documents)."""
    monkeypatch.setenv("GFBGCN_CACHE", str(tmp_path / "cache"))  # empty
    x, y, unlabeled = toy_split()
    graph = gfbgcn.build_graph(x, y, X_unlabeled=unlabeled, random_state=4, **GRAPH)
    assert not graph.from_cache and graph.cache_path and graph.seed == 4
    clf = TextGCNClassifier(**FAST, random_state=4).fit(x, y, X_unlabeled=unlabeled)
    assert clf.graph_.from_cache and clf.graph_.key == graph.key
    assert clf.graph_.cache_path == graph.cache_path
    _same_data(graph.to_pyg(), clf.graph_.to_pyg())
    assert bool((graph.to_pyg().y[len(x):graph.num_docs] == -1).all())


def test_a_random_state_generator_is_drawn_from_as_fit_draws():
    """A ``RandomState`` gives one draw, the run's seed, as ``fit``'s; the masks follow it."""
    x, y, _ = toy_split()
    graph = build_graph(x, y, random_state=np.random.RandomState(5), **GRAPH)
    clf = TextGCNClassifier(**FAST, random_state=np.random.RandomState(5)).fit(x, y)
    assert graph.seed == clf.result_.config.seed != 0
    _same_data(graph.to_pyg(), clf.graph_.to_pyg())


def test_a_corpus_file_gives_the_graph_data_build_caches(tmp_path, capsys):
    """``build_graph(path)`` reads the file as ``gfbgcn data build --dataset`` does: the same
    graph key, and the second of the two finds the first's cache file."""
    path = write_topic_csv(tmp_path / "topics.csv", n=30)
    graph = build_graph(path, split_seed=1)
    assert graph.corpus_name == "topics" and graph.num_docs == 30
    assert main(["data", "build", "--dataset", str(path), "--split-seed", "1"]) == 0
    assert capsys.readouterr().out.strip() == f"topics: graph already cached (key {graph.key})"
    assert build_graph(str(path), split_seed=1).from_cache
    corpus = load_corpus(path, seed=1)
    assert build_graph(corpus).key == graph.key  # a Corpus object: the same graph


def test_cache_false_writes_nothing():
    x, y, _ = toy_split()
    graph = build_graph(x, y, cache=False, **GRAPH)
    assert graph.cache_path == "" and not graph.from_cache
    cache = os.environ["GFBGCN_CACHE"]
    assert not any(graph.key and graph.key in f for _, _, files in os.walk(cache)
                   for f in files)


def test_bad_parameters_fail_in_one_line_before_the_corpus_is_read(tmp_path):
    missing = tmp_path / "nowhere.csv"  # never read: the parameter fails first
    with pytest.raises(OptionError, match=r"^window must be"):
        build_graph(missing, window=1)
    with pytest.raises(TypeError, match="unexpected parameter.*hidden.*graph parameters are"):
        build_graph(missing, hidden=8)
    with pytest.raises(OptionError, match="split_seed"):
        build_graph(missing, split_seed=-1)
    with pytest.raises(InputError, match="y and X_unlabeled go with documents"):
        build_graph(missing, ["a"])
    with pytest.raises(UserError, match="X and y have different lengths"):
        build_graph(["a b", "c d"], ["x"])


@pytest.mark.realdata
def test_r8_by_name_is_the_papers_graph(data_dir):
    """The benchmark's graph with the paper's settings (the node and edge counts of
    ``docs/benchmarks.md``), its masks the split of ``gfbgcn train --dataset r8 --seed 0``."""
    graph = gfbgcn.build_graph("R8", data_dir=data_dir)
    assert (graph.num_nodes, graph.num_doc_word, graph.num_word_word) == (15362, 323670,
                                                                          1395684)
    assert graph.config.stop_words is not None and graph.config.min_freq == 5
    data = graph.to_pyg()
    assert int(data.test_mask.sum()) == 2189
    assert int(data.val_mask.sum()) == round(0.1 * 5485)

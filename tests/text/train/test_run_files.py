"""A training run's files: predictions.csv, what a paired test needs."""

from __future__ import annotations

import csv
import io

import numpy as np

from gfbgcn.text.graph.text_graph import GraphConfig, build_text_graph
from gfbgcn.text.tokenize.registry import UnicodeTokenizer
from gfbgcn.text.train.run_files import predictions_csv
from tests.text.search.test_own_corpus import tiny_corpus


def _graph():
    return build_text_graph(tiny_corpus(40), GraphConfig(min_freq=1, stop_words=None),
                            UnicodeTokenizer(), cache=False)


def test_predictions_are_the_test_documents_with_the_argmax_and_the_baseline():
    graph = _graph()
    rng = np.random.default_rng(0)
    probs = rng.dirichlet([1, 1], size=graph.num_docs)
    base = rng.dirichlet([1, 1], size=graph.num_docs)
    rows = list(csv.DictReader(io.StringIO(predictions_csv(graph, probs, baseline=base))))
    test = np.flatnonzero(~graph.is_train)
    assert [int(r["doc"]) for r in rows] == test.tolist()
    for r in rows:
        i = int(r["doc"])
        assert r["label"] == graph.label_names[graph.labels[i]]
        assert r["predicted"] == graph.label_names[probs[i].argmax()]
        assert float(r["probability"]) == round(probs[i].max(), 6)
        assert r["baseline_predicted"] == graph.label_names[base[i].argmax()]


def test_multi_label_predictions_join_the_labels_above_the_threshold():
    graph = _graph()
    probs = np.tile([0.9, 0.2, 0.6], (graph.num_docs, 1))
    text = predictions_csv(graph, probs, label_names=["a", "b", "c"], threshold=0.5)
    rows = list(csv.DictReader(io.StringIO(text)))
    assert "baseline_predicted" not in rows[0]
    assert {r["predicted"] for r in rows} == {"a|c"} and {r["probability"] for r in rows} == {""}

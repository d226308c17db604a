"""The library's encoder-feature defaults are the decisions of ``benchmarks/encoder_choices.py``
on its committed records (``docs/results/raw/encoder-choices``)."""

from __future__ import annotations

import json

from gfbgcn.text.train.features.encoder import FEATURE_SCALE, WORD_ROWS
from tests.benchmarks._load import load_script


def test_the_defaults_are_the_studys_decisions(monkeypatch):
    choices = load_script("encoder_choices", monkeypatch)
    records = choices.ROOT / "docs/results/raw/encoder-choices"
    graph = json.loads((records / "graph_seed0.json").read_text())
    long = json.loads((records / "graph-long_seed0.json").read_text())
    word_rows, _ = choices.decide_graph(graph)
    assert word_rows == WORD_ROWS
    assert choices.decide_scale(graph, long, word_rows) == FEATURE_SCALE


def test_the_scale_rule_takes_the_smaller_of_near_ties(monkeypatch):
    choices = load_script("encoder_choices", monkeypatch)
    graph = [{"corpus": "a", "word_rows": "encoder", "scale": s, "val_accuracy": acc}
             for s, acc in ((0.1, 0.9000), (0.3, 0.9005), (1.0, 0.80))]
    long = [{"corpus": "b", "model": "gfb-diag", "word_rows": "encoder", "scale": s,
             "val_accuracy": acc} for s, acc in ((0.1, 0.70), (0.3, 0.70), (1.0, 0.90))]
    # means: 0.1 -> 0.8, 0.3 -> 0.80025, 1 -> 0.85: 1 wins outright
    assert choices.decide_scale(graph, long, "encoder") == 1.0
    long[2]["val_accuracy"] = 0.70  # now 0.3 leads 0.1 by 0.00025 < 0.001: the smaller
    assert choices.decide_scale(graph, long, "encoder") == 0.1

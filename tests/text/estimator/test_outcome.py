"""The run directory of a fitted classifier (``gfbgcn.text.estimator.outcome``)."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from gfbgcn import TextGCNClassifier
from gfbgcn.core.errors import UserError
from gfbgcn.text.estimator.outcome import (
    BASELINE_METHOD,
    baseline_metrics,
    chosen_combination,
)
from tests.text.search.test_own_corpus import tiny_corpus

FAST = {"hidden": 8, "epochs": 6, "min_freq": 1, "stop_words": None, "cache": False,
        "model": "gcn"}


def test_write_run_records_the_model_and_the_baseline(tmp_path):
    clf = TextGCNClassifier(**FAST).fit_corpus(tiny_corpus(60))
    out = clf.write_run(tmp_path / "run", provenance={"command": ["test"]})
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["test"] == json.loads(json.dumps(clf.result_.test))
    assert metrics["baseline"]["method"] == BASELINE_METHOD
    assert metrics["baseline"] == json.loads(json.dumps(baseline_metrics(clf.baseline_)))
    header = (out / "predictions.csv").read_text().splitlines()[0]
    assert header.endswith("baseline_predicted")
    assert json.loads((out / "config.json").read_text())["run"] == {"command": ["test"]}


def test_write_run_needs_the_training_state(tmp_path):
    clf = TextGCNClassifier(**FAST).fit_corpus(tiny_corpus(60))
    clf.save(tmp_path / "model")
    loaded = TextGCNClassifier.load(tmp_path / "model")
    with pytest.raises(UserError, match="holds no training state"):
        loaded.write_run(tmp_path / "run")


def test_chosen_combination_needs_a_chosen_combination():
    """The baseline and graph weight of a chosen combination (weight 0: the baseline alone);
    a search that chose a graph model alone has none."""
    baseline = object()
    combined = SimpleNamespace(baseline=baseline,
                               chosen=SimpleNamespace(predictor="graph+linear", weight=0.4))
    assert chosen_combination(combined) == (baseline, 0.4)
    alone = SimpleNamespace(baseline=baseline,
                            chosen=SimpleNamespace(predictor="linear", weight=0.0))
    assert chosen_combination(alone) == (baseline, 0.0)
    graph = SimpleNamespace(baseline=baseline,
                            chosen=SimpleNamespace(predictor="graph", weight=None))
    with pytest.raises(ValueError, match="chose a graph predictor, not a combination"):
        chosen_combination(graph)
    no_baseline = SimpleNamespace(baseline=None, chosen=SimpleNamespace(predictor="graph",
                                                                        weight=None))
    with pytest.raises(ValueError, match="not a combination"):
        chosen_combination(no_baseline)

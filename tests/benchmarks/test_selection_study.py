"""``benchmarks/selection_study.py``: the rules it compares, its held-out protocol and its
pre-registered decision, on a hand-made search (no test data involved)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "selection_study.py"


def _study():
    spec = importlib.util.spec_from_file_location("selection_study", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


def _onehot(pred: np.ndarray, c: int = 2, sure: float = 0.9) -> np.ndarray:
    p = np.full((len(pred), c), (1 - sure) / (c - 1))
    p[np.arange(len(pred)), pred] = sure
    return p


def _search(study, y, linear_pred, graph_preds, chosen=0):
    kinds, graph_of = ["linear"], [-1]
    for g in range(len(graph_preds)):
        kinds += ["graph", "graph+linear"]
        graph_of += [g, g]
    return study.Search("toy", 0, kinds + ["ensemble"], graph_of + [-1], y,
                        _onehot(linear_pred), np.stack([_onehot(p) for p in graph_preds]),
                        chosen=chosen, rule="accuracy", full=list(range(len(graph_preds))))


def test_graph_only_candidates_are_left_out_by_the_no_graph_only_rules():
    study = _study()
    y = np.array([0, 1] * 10)
    right = y.copy()
    wrong = 1 - y
    s = _search(study, y, wrong, [right])  # the graph alone is right everywhere
    idx = np.arange(len(y))
    probs = study.candidate_probs(s, idx)
    assert study.choose("accuracy", s, probs, idx) == 1  # the graph, before its combination
    # the combination's weight (chosen by log-loss) is 1 here: as right as the graph alone
    assert study.choose("accuracy, no graph-only", s, probs, idx) == 2
    assert study.choose("log-loss, no graph-only", s, probs, idx) == 2


def test_ties_go_to_the_baseline():
    study = _study()
    y = np.array([0, 1] * 10)
    s = _search(study, y, y.copy(), [y.copy()])
    idx = np.arange(len(y))
    assert study.choose("accuracy", s, study.candidate_probs(s, idx), idx) == 0


def test_held_out_scores_the_choice_on_the_other_half():
    study = _study()
    y = np.array([0, 1] * 20)
    s = _search(study, y, 1 - y, [y.copy()])  # graph right, baseline wrong everywhere
    res = study.held_out(s, repetitions=3)
    assert res["accuracy"]["accuracy"] == 1.0 and res["accuracy"]["graph"] == 1.0
    assert res["accuracy, no graph-only"]["graph+linear"] == 1.0


def test_decision_needs_a_higher_mean_and_no_more_losing_corpora():
    study = _study()
    rules = study.RULES
    flat = {r: 0.8 for r in rules}
    better = {**flat, "log-loss": 0.81}
    assert study.verdict({"a": flat, "b": flat})[0] == "accuracy"
    assert study.verdict({"a": better, "b": flat})[0] == "log-loss"
    # higher on average but lower on more corpora: the search keeps its rule
    mixed = [{**flat, "log-loss": 0.79}, {**flat, "log-loss": 0.79}, {**flat, "log-loss": 0.9}]
    assert study.verdict(dict(zip("abc", mixed)))[0] == "accuracy"


def test_the_ensemble_is_offered_last_and_only_by_its_rule():
    study = _study()
    y = np.array([0, 1] * 15)
    # three graph candidates, each wrong on a different third: their mean is right everywhere
    preds = [y.copy() for _ in range(3)]
    for k, p in enumerate(preds):
        p[10 * k:10 * (k + 1)] = 1 - y[10 * k:10 * (k + 1)]
    s = _search(study, y, 1 - y, preds)
    idx = np.arange(len(y))
    probs = study.candidate_probs(s, idx)
    assert len(probs) == len(s.kinds) and s.kinds[-1] == "ensemble"
    assert (probs[-1](idx).argmax(1) == y).all()
    assert study.choose("accuracy", s, probs, idx) == 1  # the first graph candidate (2/3)
    assert study.choose("accuracy, with the ensemble", s, probs, idx) == len(s.kinds) - 1
    s.full = [0]  # only the first ran its full length: the ensemble is that one alone
    probs = study.candidate_probs(s, idx)
    assert study.choose("accuracy, with the ensemble", s, probs, idx) == 1  # tie: earlier

"""``benchmarks/vs_linear_rechoose.py``: a record's answer under the current choice rule, from
its candidates' arrays (a hand-made record)."""

from __future__ import annotations

import json

import numpy as np

from tests.benchmarks._load import load_script


def _module():
    return load_script("vs_linear_rechoose")


def _row(predictor: str, model: str, acc: float, weight: str = "", chosen: bool = False):
    return {"chosen": chosen, "stop_words": "" if predictor == "linear" else "none",
            "min_freq": "" if predictor == "linear" else 1, "window": "" if predictor == "linear"
            else 20, "model": model, "features": "onehot", "predictor": predictor,
            "weight": weight, "val_accuracy": f"{acc:.4f}", "seconds": "1.0", "stopped_at": ""}


def test_the_record_gets_the_lowest_log_loss_candidate_and_keeps_the_old_answer(tmp_path):
    y = np.array([0, 1, 0, 1])
    linear = np.array([[0.6, 0.4], [0.4, 0.6], [0.6, 0.4], [0.6, 0.4]])  # 3/4, unsure
    graph = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 0.0]], dtype=np.float32)  # 3/4,
    # sure and once wrong: a huge log-loss; mixed at 0.5, 3/4 and a loss below the baseline's
    rows = [_row("linear", "svm C=1", 0.75), _row("graph", "gcn", 0.75, chosen=True),
            _row("graph+linear", "gcn", 0.75, "0.50")]
    record = tmp_path / "toy_seed0_auto.json"
    test_pred = np.array([[0, 0], [1, 1], [0, 1]], dtype=np.int16)
    record.write_text(json.dumps({
        "candidates": rows, "test_labels": [0, 1],
        "auto": {"test": {"accuracy": 0.5}, "predictions": [1, 1]},
        "choice": {"predictor": "graph", "trained": 1, "seconds": 2.0}}))
    np.savez(tmp_path / "toy_seed0_auto_candidates.npz", val_labels=y, test_labels=[0, 1],
             linear_val_proba=linear, graph_val_proba=graph[None], test_pred=test_pred)
    module = _module()
    changed, what = module.rechoose(record)
    rec = json.loads(record.read_text())
    assert changed and what == "graph+linear gcn onehot"
    assert rec["auto"]["predictions"] == [0, 1] and rec["auto"]["test"]["accuracy"] == 1.0
    assert rec["auto_before"]["predictions"] == [1, 1]  # kept
    assert [r["chosen"] for r in rec["candidates"]] == [False, False, True]
    assert rec["choice"]["weight"] == "0.50" and rec["choice"]["trained"] == 1
    assert module.rechoose(record) == (False, what)  # a second pass keeps it
    assert json.loads(record.read_text())["auto_before"]["predictions"] == [1, 1]

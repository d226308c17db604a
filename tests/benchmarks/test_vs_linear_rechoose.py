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


def test_the_record_gets_the_lowest_log_loss_candidate_and_keeps_the_old_answer(tmp_path,
                                                                                monkeypatch):
    from gfbgcn.text.search import candidates
    from gfbgcn.text.search.selection import SelectionRule

    monkeypatch.setattr(candidates, "RULE", SelectionRule())  # the plain lowest log-loss
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
    assert rec["choice"]["rule"] == "candidates.choose (RULE: log-loss)"
    assert module.rechoose(record) == (False, what)  # a second pass keeps it
    assert json.loads(record.read_text())["auto_before"]["predictions"] == [1, 1]


def test_an_encoder_record_protects_its_partner_under_the_library_rule(tmp_path):
    from gfbgcn.text.search.selection import RULE

    y = np.array([0, 1, 0, 1])
    ngram = np.array([[0.6, 0.4], [0.4, 0.6], [0.6, 0.4], [0.6, 0.4]])  # 3/4, unsure
    head = np.array([[0.9, 0.1], [0.1, 0.9], [0.9, 0.1], [0.4, 0.6]])  # 4/4: the partner
    both = np.array([[0.5, 0.5], [0.5, 0.5], [0.5, 0.5], [0.5, 0.5]])
    graph = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.0, 1.0]])
    rows = [_row("linear", "svm C=1", 0.75), _row("linear", "lr C=1", 1.0),
            _row("linear", "svm C=1 scale=2", 0.5), _row("graph", "gcn", 1.0),
            _row("graph+linear", "gcn", 1.0, "1.00", chosen=True)]
    record = tmp_path / "toy_seed0_auto-encoder.json"
    record.write_text(json.dumps({
        "candidates": rows, "test_labels": [0, 1],
        "auto": {"test": {"accuracy": 1.0}, "predictions": [0, 1]},
        "choice": {"predictor": "graph+linear", "trained": 1, "seconds": 2.0}}))
    np.savez(tmp_path / "toy_seed0_auto-encoder_candidates.npz", val_labels=y,
             test_labels=[0, 1], linears_val_proba=np.stack([ngram, head, both]),
             graph_val_proba=graph[None],
             test_pred=np.array([[0, 0], [1, 1], [0, 0], [0, 1], [0, 1]], dtype=np.int16))
    module = _module()
    cands, protected = module.candidates_of(rows, np.load(
        tmp_path / "toy_seed0_auto-encoder_candidates.npz"))
    assert protected == 1  # the encoder head: the lowest validation log-loss of the three
    changed, what = module.rechoose(record)
    rec = json.loads(record.read_text())
    if RULE.name == "baseline":
        assert changed and what == "linear lr C=1 onehot"
        assert rec["auto"]["predictions"] == [1, 1]
        assert [r["chosen"] for r in rec["candidates"]] == [False, True, False, False, False]
    assert rec["choice"]["rule"] == f"candidates.choose (RULE: {RULE.name})"
    assert rec["auto_before"]["predictions"] == [0, 1]


def test_a_cross_fitted_record_protects_the_partner_its_search_chose():
    module = _module()
    scores = [{"cv_accuracy": 0.80, "cv_log_loss": 0.40}, {"cv_accuracy": 0.85, "cv_log_loss": 0.5},
              {"cv_accuracy": 0.85, "cv_log_loss": 0.45}]
    assert module.recorded_partner({"linears_cross_validated": scores}) == 2  # tie: the loss
    kept = {"linears_cross_validated": scores, "smoothing": {"kept": True}}
    assert module.recorded_partner(kept) == 3  # the smoothed copy, after the three
    assert module.recorded_partner({"predictor": "linear"}) is None  # an earlier search
    y = np.array([0, 1, 0, 1])
    sure = np.array([[0.9, 0.1], [0.1, 0.9], [0.9, 0.1], [0.1, 0.9]])
    unsure = np.array([[0.6, 0.4], [0.4, 0.6], [0.6, 0.4], [0.4, 0.6]])
    rows = [_row("linear", "svm C=1", 1.0), _row("linear", "svm C=1 smoothed", 1.0),
            _row("graph", "gcn", 1.0), _row("graph+linear", "gcn", 1.0, "0.50")]
    arrays = {"val_labels": y, "linears_val_proba": np.stack([sure, unsure]),
              "graph_val_proba": sure[None]}
    _, protected = module.candidates_of(rows, arrays, partner=1)
    assert protected == 1  # not the lowest validation log-loss (row 0)

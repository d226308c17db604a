"""``benchmarks/baseline_grid_records.py``: every grid point's validation scores of the built-in
baseline, written only when re-choosing on all validation documents reproduces the record's
probabilities (a hand-made corpus, no data files)."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest

from tests.benchmarks._load import load_script


def _module(monkeypatch):
    return load_script("baseline_grid_records", monkeypatch)


def _corpus(n: int = 90, seed: int = 0):
    rng = np.random.default_rng(seed)
    words = [["apple", "pear", "plum", "fig"], ["rain", "snow", "wind", "hail"],
             ["goal", "match", "team", "score"]]
    labels = rng.integers(0, 3, n)
    noise = ["the", "a", "of", "and", "it", "was"]
    texts = [" ".join(rng.choice(words[c] + noise, size=8)) for c in labels]
    return texts, labels


def _fit(module):
    from gfbgcn.text.linear.baseline import fit_baseline

    texts, labels = _corpus()
    train, val, test = np.arange(0, 50), np.arange(50, 70), np.arange(70, 90)
    result = fit_baseline(texts, labels, ["f", "w", "s"], train, val, test, seed=0)
    return texts, labels, train, val, test, result


def test_rechoosing_on_all_validation_documents_reproduces_the_baseline(monkeypatch):
    module = _module(monkeypatch)
    import torch

    from selection_study import choose_point, point_proba

    torch.set_num_threads(1)
    texts, labels, train, val, _, result = _fit(module)
    points, scores = module.grid_scores(texts, labels, 3, train, val, 0, 1)
    assert scores.shape == (len(points), len(val), 3)
    point, t = choose_point(scores, labels[val])
    assert result.model.kind == points[point].kind
    assert result.model.params == points[point].params
    assert t == result.model.temperature
    assert np.abs(point_proba(scores, point, t) - result.val_proba()).max() < 1e-9


def test_a_grid_file_is_written_only_when_it_reproduces_the_record(monkeypatch, tmp_path):
    module = _module(monkeypatch)
    texts, labels, train, val, test, result = _fit(module)
    graph = SimpleNamespace(labels=labels, label_names=["f", "w", "s"])
    split = {"train": train, "val": val, "test": test}
    monkeypatch.setattr(module, "search_split",
                        lambda dataset, seed: (SimpleNamespace(texts=texts), graph, split))
    record = tmp_path / "toy_seed0_auto.json"
    record.write_text(json.dumps({"dataset": "toy", "seed": 0}))
    candidates = tmp_path / "toy_seed0_auto_candidates.npz"
    np.savez(candidates, val_labels=labels[val], linear_val_proba=result.val_proba())
    figures = module.one(record, 1)
    assert figures["diff"] < 1e-9
    grid = np.load(tmp_path / "toy_seed0_auto_baseline_grid.npz")
    assert grid["val_scores"].dtype == np.float32
    assert np.array_equal(grid["val_labels"], labels[val])
    assert grid["kinds"][int(grid["chosen"])] == result.model.kind
    # another baseline's probabilities in the record: refused, nothing written
    (tmp_path / "toy_seed0_auto_baseline_grid.npz").unlink()
    np.savez(candidates, val_labels=labels[val], linear_val_proba=result.val_proba()[::-1])
    with pytest.raises(SystemExit, match="from the record"):
        module.one(record, 1)
    assert not (tmp_path / "toy_seed0_auto_baseline_grid.npz").exists()
    np.savez(candidates, val_labels=labels[val][::-1], linear_val_proba=result.val_proba())
    with pytest.raises(SystemExit, match="validation documents differ"):
        module.one(record, 1)

"""``benchmarks/finetune.py``'s report: the mixture and its parts over the seeds, and a run
skipped when the budget left is shorter than the data set's last run."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.benchmarks._load import load_script


def _finetune(monkeypatch):
    return load_script("finetune", monkeypatch)


def _record(seed: int, mixture: float) -> dict:
    config = {"model": "gfb-max", "hidden": 200, "lr": 0.02, "epochs": 20, "patience": 5}
    finetune = {"weight": 0.7, "encoder_lr": 1e-5, "batch_docs": 64, "max_length": 128,
                "encoder": {"name": "tiny-bert"}}
    return {"dataset": "r8", "seed": seed, "command": "python benchmarks/finetune.py",
            "wall_seconds": 30.0 + seed,
            "record": {"config": config, "finetune": finetune, "device": "cuda:0 (GPU)",
                       "versions": {"torch": "2.x"}, "epochs_run": 9, "best_epoch": 4,
                       "seconds_per_epoch": 2.5},
            "test_accuracy": {"mixture": mixture, "graph": 0.9, "head": 0.95},
            "weights": {"on_validation": {"weight": 0.25 * seed, "test_accuracy": mixture + 0.01},
                        "grid": {"weight": [0.0, 0.7, 1.0],
                                 "test_accuracy": [0.5, mixture, 0.6]}}}


def test_report_gives_the_mean_and_std_of_the_seeds(monkeypatch, tmp_path):
    finetune = _finetune(monkeypatch)
    for seed, acc in ((0, 0.96), (1, 0.98)):
        (tmp_path / f"r8_seed{seed}.json").write_text(json.dumps(_record(seed, acc)))
    text = finetune.render(tmp_path, ["r8", "r52"], note="A note.")
    row = next(line for line in text.splitlines() if line.startswith("| r8 |"))
    # w on validation (the weights chosen), then the trained w's from the grid, the parts
    assert row.startswith("| r8 | 2 | 98.00 ± 1.41 (0, 0.25) | 97.00 ± 1.41 | 90.00 ± 0.00 | "
                          "95.00 ± 0.00 |")
    assert "| 98.1 | 98.2 | 9 (4); 9 (4) | 2.5 | 30 |" in row
    assert "| r52 |" not in text  # no record: no row
    assert "patience 5 on the validation loss of the mixture. A note." in text


def test_a_run_longer_than_the_budget_left_is_skipped(monkeypatch, tmp_path, capsys):
    finetune = _finetune(monkeypatch)
    (tmp_path / "r8_seed0.json").write_text(json.dumps(_record(0, 0.96)))
    ran = []
    monkeypatch.setattr(finetune, "run_one", lambda *a: ran.append(a))
    finetune.run_all(["r8"], 2, "enc", "cpu", 20, 5, tmp_path, budget=10.0)
    assert ran == []  # seed 0 recorded, seed 1 expected to take 30 s of the 10 left
    assert "skipped r8 seed 1: took 30 s" in capsys.readouterr().out


def test_seed_from_starts_at_that_seed(monkeypatch, tmp_path):
    finetune = _finetune(monkeypatch)
    ran = []

    def run_one(dataset, seed, *rest):
        ran.append(seed)
        return {**_record(seed, 0.9), "estimate_line": []}

    monkeypatch.setattr(finetune, "run_one", run_one)
    finetune.run_all(["r8"], 3, "enc", "cpu", 20, 5, tmp_path, budget=1e9, seed_from=2)
    assert ran == [2] and (tmp_path / "r8_seed2.json").is_file()


def test_a_record_without_the_weight_table_shows_a_dash(monkeypatch, tmp_path):
    finetune = _finetune(monkeypatch)
    rec = _record(0, 0.96)
    del rec["weights"]
    (tmp_path / "r8_seed0.json").write_text(json.dumps(rec))
    row = next(line for line in finetune.render(tmp_path, ["r8"]).splitlines()
               if line.startswith("| r8 |"))
    assert row.startswith("| r8 | 1 | – | 96.00 | 90.00 |")  # it predicted at the trained w


def test_weight_table_chooses_on_validation_rows_only(monkeypatch):
    finetune = _finetune(monkeypatch)
    # validation rows 0-1: the head is right and the graph wrong; test rows 2-3: the reverse
    p_graph = np.array([[0.1, 0.9], [0.9, 0.1], [0.9, 0.1], [0.1, 0.9]])
    p_head = np.array([[0.9, 0.1], [0.1, 0.9], [0.1, 0.9], [0.9, 0.1]])
    y = np.array([0, 1, 0, 1])
    table = finetune.weight_table(p_graph, p_head, y, np.array([0, 1]), np.array([2, 3]))
    chosen = table["on_validation"]
    assert chosen["weight"] == 0.0 and chosen["val_accuracy"] == 1.0
    assert chosen["test_accuracy"] == 0.0  # test disagrees: not read for the choice
    grid = table["grid"]
    assert grid["weight"][0] == 0.0 and grid["weight"][-1] == 1.0 and len(grid["weight"]) == 21
    assert grid["test_accuracy"][-1] == 1.0 and grid["val_accuracy"][-1] == 0.0
    assert grid["val_log_loss"][0] == pytest.approx(-np.log(0.9))

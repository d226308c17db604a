"""``benchmarks/finetune.py``'s report: the mixture and its parts over the seeds, and a run
skipped when the budget left is shorter than the data set's last run."""

from __future__ import annotations

import json

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
            "test_accuracy": {"mixture": mixture, "graph": 0.9, "head": 0.95}}


def test_report_gives_the_mean_and_std_of_the_seeds(monkeypatch, tmp_path):
    finetune = _finetune(monkeypatch)
    for seed, acc in ((0, 0.96), (1, 0.98)):
        (tmp_path / f"r8_seed{seed}.json").write_text(json.dumps(_record(seed, acc)))
    text = finetune.render(tmp_path, ["r8", "r52"], note="A note.")
    row = next(line for line in text.splitlines() if line.startswith("| r8 |"))
    assert row.startswith("| r8 | 2 | 97.00 ± 1.41 | 90.00 ± 0.00 | 95.00 ± 0.00 |")
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

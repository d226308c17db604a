"""The fidelity runner: records per task, resumable, with the configuration, options and
provenance."""

from __future__ import annotations

from gfbgcn.reproduce.fidelity.experiment import Config, Row
from gfbgcn.reproduce.fidelity.run import run_row, tasks
from gfbgcn.reproduce.store import RunStore


def test_tasks_skip_existing_and_cap_seeds() -> None:
    row = Row("r", "graphs", "MUTAG", "gfb-gcn", "t", (
        Config("a", "a", {"model": "gcn", "hidden": [8, 16], "layers": [1]}, seeds=2),
        Config("b", "b", {"model": "gcn", "hidden": [8], "layers": [1],
                          "existing": {"dataset": "MUTAG"}}, existing=True),
    ), folds=3)
    assert len(tasks(row, row.configs)) == 2 * 3 * 2
    assert len(tasks(row, row.configs, seeds=1)) == 3 * 2
    assert tasks(row, row.configs)[0].key() == {"row": "r", "config": "a", "seed": 0,
                                                "fold": 0, "hidden": 8, "layers": 1}


def test_graph_row_runs_and_resumes(tmp_path, data_dir) -> None:
    row = Row("r", "graphs", "MUTAG", "gfb-gcn", "t", (
        Config("a", "a", {"model": "gfb-gcn", "hidden": [8], "layers": [1],
                          "train": {"epochs": 1},
                          "options": {"conv": {"second_norm": "l2"}, "readout": "sum"}},
               seeds=1),
    ), folds=3)
    store = RunStore(tmp_path)
    assert run_row(row, store, data_dir=str(data_dir)) == 3
    rec = store.load({"row": "r", "config": "a", "seed": 0, "fold": 2, "hidden": 8,
                      "layers": 1})
    assert rec["options"]["readout"] == "sum" and rec["config"]["options"]["conv"] == {
        "second_norm": "l2"}
    assert rec["train_config"]["epochs"] == 1 and "versions" in rec and "machine" in rec
    assert run_row(row, store, data_dir=str(data_dir)) == 0


def test_entity_row_runs_on_validation_and_test_and_resumes(tmp_path, data_dir) -> None:
    row = Row("e", "entity", "mutag", "gfb-rgcn", "t", (
        Config("a", "a", {"model": "gfb-rgcn", "entity": {"epochs": 2, "lambda_init": 0.5}},
               seeds=2),
    ))
    store = RunStore(tmp_path)
    assert run_row(row, store, data_dir=str(data_dir)) == 2
    rec = store.load({"row": "e", "config": "a", "seed": 1})
    assert rec["config"]["epochs"] == 2 and rec["config"]["lambda_init"] == 0.5
    assert 0 <= rec["val"]["accuracy"] <= 1 and 0 <= rec["test"]["accuracy"] <= 1
    assert rec["split"]["split_seed"] == 1 and rec["split"]["val_nodes"] > 0
    assert len(rec["lambda"]) == 2 and rec["best_epoch"] == 2  # one λ per layer
    assert "versions" in rec and "machine" in rec
    assert run_row(row, store, data_dir=str(data_dir)) == 0

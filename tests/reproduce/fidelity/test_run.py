"""The fidelity runner: records per task, resumable, with the configuration, options and
provenance; the declarative list is well formed."""

from __future__ import annotations

import pytest

from gfbgcn.reproduce.store import RunStore
from gfbgcn.reproduce.entity.experiment import base_config
from gfbgcn.reproduce.fidelity.experiment import ROWS, Config, Row
from gfbgcn.reproduce.fidelity.run import run_row, tasks
from gfbgcn.reproduce.fidelity.text_run import trace_test_accuracy, text_config
from gfbgcn.text.graph.text_graph import GraphConfig, build_text_graph
from gfbgcn.text.tokenize.clean import whitespace_tokenize
from gfbgcn.text.train.config import TrainConfig
from gfbgcn.text.train.run import train_text
from tests.text.toydata import toy_corpus


def test_rows_are_well_formed() -> None:
    ids = [r.id for r in ROWS]
    assert len(ids) == len(set(ids))
    for row in ROWS:
        names = [c.name for c in row.configs]
        assert len(names) == len(set(names)), row.id
        assert any(not c.reference for c in row.configs), row.id
        for c in row.configs:
            assert not c.versus or c.versus in names, (row.id, c.name)
            if row.task == "text" and not c.existing:
                text_config(c.config, 0)  # a valid TrainConfig
            if row.task == "entity":  # a valid EntityConfig
                base_config(row.dataset, c.config["model"], **c.config.get("entity", {}))
            assert c.seeds >= 1


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


def test_the_trace_test_accuracy_is_that_of_the_kept_weights() -> None:
    """At the kept epoch the traced test accuracy equals the run's reported test accuracy."""
    graph = build_text_graph(toy_corpus(), GraphConfig(window=3, min_freq=1, stop_words=None),
                             whitespace_tokenize, cache=False)
    result = train_text(graph, TrainConfig(model="gcn", epochs=6, hidden=8, seed=0,
                                           patience=100), progress=False,
                        epoch_hook=trace_test_accuracy)
    trace = [h["test_acc"] for h in result.history]
    assert len(trace) == 6 and all(0.0 <= a <= 1.0 for a in trace)
    assert trace[result.best_epoch - 1] == pytest.approx(result.test["accuracy"], abs=1e-6)

"""The graph-classification grid: fold-major runs, resumable through the run store, and the
protocol's per-fold choice on the validation fold."""

from __future__ import annotations

import math
from collections.abc import Iterator

import pytest
import torch
from torch_geometric.data import Data

from gfbgcn.graph_classification.data import GraphDataset
from gfbgcn.graph_classification.train import GraphTrainConfig
from gfbgcn.reproduce.graphs.experiment import (
    HIDDEN_GRID,
    LAYERS_GRID,
    GraphRun,
    complete_folds,
    grid,
    run_graph_grid,
    select_per_fold,
    shared_batches,
    summarize_folds,
)
from gfbgcn.reproduce.store import RunStore


def _toy_dataset(n: int = 20) -> GraphDataset:
    graphs = []
    for i in range(n):
        size = 3 + i % 3
        pairs = [(0, j) for j in range(1, size)] if i % 2 else [(j, j + 1) for j in range(size - 1)]
        ei = torch.tensor(pairs).t()
        graphs.append(Data(x=torch.ones(size, 2), edge_index=torch.cat([ei, ei.flip(0)], 1),
                           y=torch.tensor([i % 2])))
    return GraphDataset("TOY", graphs, 2, 2, "constant (2)", {"num_graphs": n})


def test_paper_grid() -> None:
    assert HIDDEN_GRID == (16, 32, 64, 128) and LAYERS_GRID == (1, 2, 3, 4, 5)


def test_grid_is_fold_major_and_seeded_per_fold() -> None:
    runs = grid(_toy_dataset(), ["gcn", "sage"], folds=5, fold_limit=2, hidden=[8, 16],
                layers=[1, 2], seed=10)
    assert len(runs) == 2 * 2 * 2 * 2
    assert [r.split.fold for r in runs] == [0] * 8 + [1] * 8
    assert {r.seed for r in runs if r.split.fold == 1} == {11}  # fold k trains from seed + k
    assert runs[0].key() == {"dataset": "TOY", "model": "gcn", "fold": 0, "hidden": 8,
                             "layers": 1}
    assert len(grid(_toy_dataset(), ["gcn"], 5, None, [8], [1], 0)) == 5
    assert len(grid(_toy_dataset(), ["gcn"], 5, 9, [8], [1], 0)) == 5  # limit above K


def test_run_graph_grid_saves_records_and_resumes(tmp_path) -> None:
    ds = _toy_dataset()
    store = RunStore(tmp_path)
    runs = grid(ds, ["gcn", "gfb-sage"], folds=4, fold_limit=1, hidden=[4], layers=[1, 2], seed=0)
    cfg = GraphTrainConfig(epochs=2, patience=2, batch_size=8)
    saved: list[GraphRun] = []
    assert run_graph_grid(ds, runs, store, cfg, folds=4, seed=0,
                          on_saved=lambda run, rec: saved.append(run)) == 4
    assert saved == runs
    record = store.load(runs[-1].key())
    assert record["num_folds"] == 4 and record["seed"] == 0
    assert record["train_config"]["epochs"] == 2 and record["epochs_run"] <= 2
    assert record["data"] == {"num_graphs": 20, "features": "constant (2)"}
    assert len(record["lambda"]) == 2  # gfb-sage with 2 layers
    assert run_graph_grid(ds, runs, store, cfg, folds=4, seed=0) == 0


def test_select_per_fold_uses_validation_only() -> None:
    def rec(fold: int, hidden: int, val_acc: float, val_loss: float, test_acc: float) -> dict:
        key = {"fold": fold, "hidden": hidden, "layers": 1}
        return {"key": key, "val_acc": val_acc, "val_loss": val_loss, "test_acc": test_acc}

    recs = [
        rec(0, 16, 0.8, 0.5, 0.1),
        rec(0, 32, 0.7, 0.1, 0.99),  # better test, worse validation: must not be chosen
        rec(1, 16, 0.6, 0.4, 0.2),
        rec(1, 32, 0.6, 0.3, 0.3),  # tie on accuracy, lower loss wins
    ]
    sel = select_per_fold(recs)
    assert sel[0]["key"]["hidden"] == 16 and sel[1]["key"]["hidden"] == 32


def test_report_counts_only_folds_with_every_configuration():
    def rec(fold, hidden, layers):
        return {"key": {"fold": fold, "hidden": hidden, "layers": layers}}

    records = [rec(0, 16, 1), rec(0, 16, 2), rec(1, 16, 1), rec(1, 16, 2), rec(2, 16, 1)]
    kept = complete_folds(records)
    assert sorted({r["key"]["fold"] for r in kept}) == [0, 1]
    assert len(kept) == 4


def test_select_per_fold_breaks_ties_by_size() -> None:
    def rec(hidden: int, layers: int) -> dict:
        return {"key": {"fold": 0, "hidden": hidden, "layers": layers}, "val_acc": 0.5,
                "val_loss": 0.5, "test_acc": hidden / 100}

    sel = select_per_fold([rec(32, 1), rec(16, 2), rec(16, 1)])
    assert (sel[0]["key"]["hidden"], sel[0]["key"]["layers"]) == (16, 1)


def test_summarize_folds_uses_the_population_std() -> None:
    selected = {0: {"test_acc": 0.7}, 1: {"test_acc": 0.8}, 2: {"test_acc": 0.9}}
    mean, std, n = summarize_folds(selected)
    assert (mean, n) == (pytest.approx(80.0), 3)
    assert std == pytest.approx(math.sqrt(200 / 3))  # ddof 0, in percent
    mean, std, n = summarize_folds({})
    assert math.isnan(mean) and math.isnan(std) and n == 0


@pytest.fixture
def float64() -> Iterator[None]:
    before = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    yield
    torch.set_default_dtype(before)


@pytest.mark.usefixtures("float64")
def test_batched_grid_makes_the_records_of_the_runs_one_by_one(tmp_path) -> None:
    ds = _toy_dataset()  # float64 features, float64 networks: equal to rounding
    runs = grid(ds, ["gcn", "gfb-sage"], folds=4, fold_limit=2, hidden=[4, 8], layers=[1, 2],
                seed=0)
    assert {shared_batches(r) for r in runs} == {("TOY", m, k, k) for m in ("gcn", "gfb-sage")
                                                 for k in (0, 1)}
    cfg = GraphTrainConfig(epochs=4, patience=2, batch_size=8)
    one, batched = RunStore(tmp_path / "one"), RunStore(tmp_path / "batched")
    assert run_graph_grid(ds, runs, one, cfg, folds=4, seed=0) == 16
    assert run_graph_grid(ds, runs, batched, cfg, folds=4, seed=0, batch_runs=3) == 16
    for run in runs:
        alone, together = one.load(run.key()), batched.load(run.key())
        assert "batched_runs" not in alone  # the records of today's default, as before
        assert together.pop("batched_runs") == (1 if run.hidden == 8 and run.layers == 2 else 3)
        assert list(together) == list(alone)  # the same fields in the same order
        for field, value in alone.items():
            if field in ("val_loss", "val_acc", "test_loss", "test_acc"):
                assert together[field] == pytest.approx(value, abs=1e-10), field
            elif field == "lambda":
                assert together[field] == pytest.approx(value, abs=1e-10)
            elif field != "seconds":
                assert together[field] == value, field
    batched.path(runs[5].key()).unlink()  # resumes: only the missing run, alone
    assert run_graph_grid(ds, runs, batched, cfg, folds=4, seed=0, batch_runs=3) == 1
    assert batched.load(runs[5].key())["batched_runs"] == 1

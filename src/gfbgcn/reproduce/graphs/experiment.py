"""The graph-classification grid (supplement, Table "Results for the problem of graph
classification"): every (data set, model, fold, hidden, layers) run, and per-fold selection.

Runs go through the shared harness (:mod:`gfbgcn.reproduce.harness`): one JSON record per run under
``<out>/raw/graphs/``, resumable, fold-major within a data set (so an interrupted grid leaves
all models on the same folds), optionally in several worker processes that inherit the loaded
data set.  :func:`select_per_fold` applies the protocol's choice on the validation fold.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from gfbgcn.core.device import resolve_device
from gfbgcn.graph_classification.batching import GraphBatcher
from gfbgcn.graph_classification.data import GraphDataset
from gfbgcn.graph_classification.train import GraphTrainConfig, Split, make_splits, train_one
from gfbgcn.reproduce.harness import run_pending
from gfbgcn.reproduce.stats import mean_std
from gfbgcn.reproduce.store import RunStore

#: The paper's grid: hidden {16, 32, 64, 128} x layers {1, ..., 5}.
HIDDEN_GRID: tuple[int, ...] = (16, 32, 64, 128)
LAYERS_GRID: tuple[int, ...] = (1, 2, 3, 4, 5)


@dataclass(frozen=True)
class GraphRun:
    """One configuration trained on one fold."""

    dataset: str
    model: str
    split: Split
    hidden: int
    layers: int
    seed: int

    def key(self) -> dict[str, Any]:
        return {"dataset": self.dataset, "model": self.model, "fold": self.split.fold,
                "hidden": self.hidden, "layers": self.layers}


def grid(ds: GraphDataset, models: Sequence[str], folds: int, fold_limit: int | None,
         hidden: Sequence[int], layers: Sequence[int], seed: int) -> list[GraphRun]:
    """Fold-major runs; fold ``k`` trains from seed ``seed + k`` (its validation fold too)."""
    splits = make_splits(ds.y.numpy(), folds, seed)
    first = range(folds if fold_limit is None else min(fold_limit, folds))
    return [GraphRun(ds.name, m, splits[k], h, n, seed + k)
            for k in first for m in models for h in hidden for n in layers]


def run_graph_grid(ds: GraphDataset, runs: list[GraphRun], store: RunStore, cfg: GraphTrainConfig,
                   folds: int, seed: int, *, workers: int = 1, threads: int | None = 1,
                   on_saved: Callable[..., None] | None = None, device: Any = "cpu") -> int:
    """Run every run not yet in ``store`` on ``device``; returns how many ran."""
    device = resolve_device(device)
    # all graphs concatenated once (and moved to the device once), shared by the workers
    batcher = GraphBatcher(ds.graphs).to(device)
    data_info = {**ds.info, "features": ds.feature_desc}

    def run(r: GraphRun) -> dict[str, Any]:
        rec = train_one(r.model, ds.graphs, r.split, ds.num_features, ds.num_classes,
                        r.hidden, r.layers, cfg, r.seed, batcher=batcher, device=device)
        return {**rec, "num_folds": folds, "seed": seed, "train_config": asdict(cfg),
                "data": data_info}

    return run_pending(runs, store, run, workers=workers, threads=threads, desc=ds.name,
                       on_saved=on_saved)


def select_per_fold(records: Sequence[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """Per fold, the record with the best validation accuracy (ties: val loss, size)."""
    best: dict[int, dict[str, Any]] = {}
    for rec in records:
        k = int(rec["key"]["fold"])
        rank = (-rec["val_acc"], rec["val_loss"], rec["key"]["hidden"], rec["key"]["layers"])
        if k not in best or rank < best[k]["_rank"]:
            best[k] = {**rec, "_rank": rank}
    return best


def complete_folds(records: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records of the folds that hold every (hidden, layers) configuration of the grid
    (the union of the configurations in ``records``): selecting within an unfinished fold
    would pick among fewer configurations than the other folds."""
    grid_configs = {(r["key"]["hidden"], r["key"]["layers"]) for r in records}
    by_fold: dict[int, set[tuple[int, int]]] = defaultdict(set)
    for r in records:
        by_fold[int(r["key"]["fold"])].add((r["key"]["hidden"], r["key"]["layers"]))
    done = {k for k, configs in by_fold.items() if configs == grid_configs}
    return [r for r in records if int(r["key"]["fold"]) in done]


def summarize_folds(selected: dict[int, dict[str, Any]]) -> tuple[float, float, int]:
    """(mean, population std, number of folds) of the selected test accuracies, in percent."""
    if not selected:
        return math.nan, math.nan, 0
    mean, std = mean_std([100.0 * r["test_acc"] for r in selected.values()], ddof=0)
    return mean, std, len(selected)

"""The graph-classification grid (supplement, Table "Results for the problem of graph
classification"): every (data set, model, fold, hidden, layers) run, and per-fold selection.

Runs go through the shared harness (:mod:`gfbgcn.reproduce.harness`): one JSON record per run under
``<out>/raw/graphs/``, resumable, fold-major within a data set (so an interrupted grid leaves
all models on the same folds), optionally in several worker processes that inherit the loaded
data set, optionally several configurations of a fold trained as one batched model
(:mod:`gfbgcn.reproduce.batches`).  :func:`select_per_fold` applies the protocol's choice on
the validation fold.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from gfbgcn.core.device import resolve_device
from gfbgcn.graph_classification.batched import train_batch
from gfbgcn.graph_classification.batching import GraphBatcher
from gfbgcn.graph_classification.data import GraphDataset
from gfbgcn.graph_classification.train import GraphTrainConfig, Split, make_splits, train_one
from gfbgcn.reproduce.batches import run_pending_batches
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


def shared_batches(run: GraphRun) -> tuple[str, str, int, int]:
    """What runs that can train as one batched model share: their data set, model, fold and
    seed.  Runs of one seed and split draw the same mini-batches, whatever their
    configuration (:mod:`gfbgcn.graph_classification.batched`): a fold's configurations of one
    model."""
    return run.dataset, run.model, run.split.fold, run.seed


def run_graph_grid(ds: GraphDataset, runs: list[GraphRun], store: RunStore, cfg: GraphTrainConfig,
                   folds: int, seed: int, *, workers: int = 1, threads: int | None = 1,
                   on_saved: Callable[..., None] | None = None, device: Any = "cpu",
                   batch_runs: int = 1) -> int:
    """Run every run not yet in ``store`` on ``device``; returns how many ran.

    ``batch_runs``: at most this many runs sharing their mini-batches (:func:`shared_batches`)
    train as one batched model (:func:`~gfbgcn.graph_classification.batched.train_batch`:
    each run's records as one by one, to rounding); 1 trains each run on its own
    (:func:`~gfbgcn.graph_classification.train.train_one`)."""
    device = resolve_device(device)
    # all graphs concatenated once (and moved to the device once), shared by the workers
    batcher = GraphBatcher(ds.graphs).to(device)
    data_info = {**ds.info, "features": ds.feature_desc}

    def finish(rec: dict[str, Any]) -> dict[str, Any]:
        return {**rec, "num_folds": folds, "seed": seed, "train_config": asdict(cfg),
                "data": data_info}

    def run(r: GraphRun) -> dict[str, Any]:
        return finish(train_one(r.model, ds.graphs, r.split, ds.num_features, ds.num_classes,
                                r.hidden, r.layers, cfg, r.seed, batcher=batcher,
                                device=device))

    def run_batch(rs: list[GraphRun]) -> list[dict[str, Any]]:
        first = rs[0]
        out = train_batch(first.model, ds.graphs, first.split, ds.num_features,
                          ds.num_classes, [(r.hidden, r.layers) for r in rs], cfg, first.seed,
                          batcher=batcher, device=device)
        return [finish(b.record) for b in out]

    options: dict[str, Any] = {"workers": workers, "threads": threads, "desc": ds.name,
                               "on_saved": on_saved}
    if batch_runs == 1:
        return run_pending(runs, store, run, **options)
    return run_pending_batches(runs, store, run_batch, group=shared_batches, size=batch_runs,
                               **options)


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

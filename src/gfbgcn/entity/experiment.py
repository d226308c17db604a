"""The entity-classification grid: validation-based choices, then the 10 test runs.

For every (data set, model):

1. *Selection.*  Each candidate :class:`EntityConfig` is trained ``select_runs`` times; run ``s``
   holds out a stratified 20% of the benchmark's training nodes (split seed ``s``, model seed
   ``s``) and is scored on them.  The config with the highest mean validation accuracy wins
   (ties: lower mean validation cross-entropy, then the earlier candidate).
2. *Test.*  The chosen config is trained on the full benchmark training set from seeds
   ``0..runs-1`` and evaluated once on the benchmark test set after the last epoch.

Every run is one JSON file in a :class:`~gfbgcn.train.store.RunStore`, so an interrupted grid
resumes where it stopped.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from gfbgcn.entity.data import HIDDEN, EntityData, stratified_holdout
from gfbgcn.entity.model import EntityConfig
from gfbgcn.entity.train import train_once
from gfbgcn.runinfo import machine_info, package_versions
from gfbgcn.train.store import RunStore

VALIDATION_FRACTION = 0.2
#: The R-GCN paper's own per-data-set choices (used when selection is switched off).
RGCN_PAPER_SETTINGS: dict[str, dict[str, Any]] = {
    "aifb": {"num_bases": None, "weight_decay": 0.0},
    "mutag": {"num_bases": 30, "weight_decay": 5e-4},
    "bgs": {"num_bases": 40, "weight_decay": 5e-4},
    "am": {"num_bases": 40, "weight_decay": 5e-4},
}
#: Candidate basis counts; a full W_r per relation is out of reach for BGS/AM (>10^9 weights).
BASES_GRID: dict[str, tuple[int | None, ...]] = {
    "aifb": (None, 30),
    "mutag": (None, 30),
    "bgs": (30, 40),
    "am": (30, 40),
}
WEIGHT_DECAY_GRID: tuple[float, ...] = (0.0, 5e-4)
LAMBDA_INIT_GRID: tuple[float, ...] = (0.0, 1.0)

Progress = Callable[[str], None]


def base_config(dataset: str, model: str, **overrides: Any) -> EntityConfig:
    """The protocol's fixed part (hidden size, lr, epochs) with the R-GCN paper's settings."""
    cfg = EntityConfig(model=model, hidden=HIDDEN[dataset], **RGCN_PAPER_SETTINGS[dataset])
    return replace(cfg, **overrides)


def candidates(
    dataset: str,
    model: str,
    lambda_inits: tuple[float, ...] = LAMBDA_INIT_GRID,
    **overrides: Any,
) -> list[EntityConfig]:
    """The configs compared on validation: bases x weight decay (x lambda_0 for GFB-R-GCN)."""
    lambdas = tuple(lambda_inits) if model == "gfb-rgcn" else (1.0,)
    base = base_config(dataset, model, **overrides)
    return [
        replace(base, num_bases=bases, weight_decay=wd, lambda_init=lam)
        for bases in BASES_GRID[dataset]
        for wd in WEIGHT_DECAY_GRID
        for lam in lambdas
    ]


def _provenance() -> dict[str, Any]:
    return {"versions": package_versions(), "machine": machine_info()}


def _mean_std(values: list[float]) -> tuple[float, float]:
    mean = statistics.fmean(values)
    std = statistics.stdev(values) if len(values) > 1 else 0.0
    return mean, std


@dataclass
class Selection:
    """Validation summary of one candidate config."""

    config: EntityConfig
    val_acc: list[float] = field(default_factory=list)
    val_loss: list[float] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        acc_mean, acc_std = _mean_std(self.val_acc)
        loss_mean, _ = _mean_std(self.val_loss)
        return {
            "tag": self.config.tag,
            "config": self.config.to_dict(),
            "runs": len(self.val_acc),
            "val_acc_mean": acc_mean,
            "val_acc_std": acc_std,
            "val_loss_mean": loss_mean,
        }


def select(
    data: EntityData,
    configs: Iterable[EntityConfig],
    select_runs: int,
    store: RunStore,
    tick: Progress,
) -> tuple[EntityConfig, list[dict[str, Any]]]:
    """Train every config ``select_runs`` times on 80% of train, score on the held-out 20%."""
    results: list[Selection] = []
    for cfg in configs:
        sel = Selection(cfg)
        for seed in range(select_runs):
            key = {"phase": "select", "dataset": data.name, "model": cfg.model,
                   "config": cfg.tag, "seed": seed}
            tick(f"select {data.name} {cfg.model} {cfg.tag} seed {seed}")
            if store.done(key):
                record = store.load(key)
            else:
                fit_pos, val_pos = stratified_holdout(data.train_y, VALIDATION_FRACTION, seed)
                record = train_once(
                    data, cfg, seed,
                    data.train_idx[fit_pos], data.train_y[fit_pos],
                    {"val": (data.train_idx[val_pos], data.train_y[val_pos])},
                )
                record.update(_provenance(), split={
                    "fit_nodes": int(fit_pos.numel()), "val_nodes": int(val_pos.numel()),
                    "split_seed": seed, "fraction": VALIDATION_FRACTION,
                }, dataset_info=data.info)
                store.save(key, record)
            sel.val_acc.append(record["metrics"]["val"]["accuracy"])
            sel.val_loss.append(record["metrics"]["val"]["loss"])
        results.append(sel)
    # max mean val accuracy; ties -> lower mean val loss -> earlier candidate (stable sort)
    ranked = sorted(
        range(len(results)),
        key=lambda i: (-round(results[i].summary()["val_acc_mean"], 12),
                       results[i].summary()["val_loss_mean"]),
    )
    chosen = results[ranked[0]].config
    return chosen, [r.summary() | {"chosen": r.config == chosen} for r in results]


def test_runs(
    data: EntityData, cfg: EntityConfig, runs: int, store: RunStore, tick: Progress
) -> list[dict[str, Any]]:
    """Train ``cfg`` on the whole benchmark training set from seeds ``0..runs-1``; test once."""
    records = []
    for seed in range(runs):
        key = {"phase": "test", "dataset": data.name, "model": cfg.model,
               "config": cfg.tag, "seed": seed}
        tick(f"test {data.name} {cfg.model} seed {seed}")
        if store.done(key):
            records.append(store.load(key))
            continue
        record = train_once(
            data, cfg, seed, data.train_idx, data.train_y, {"test": (data.test_idx, data.test_y)}
        )
        record.update(_provenance(), dataset_info=data.info)
        store.save(key, record)
        records.append(store.load(key))
    return records


def summarize_test(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Mean/std (sample std, ddof 1) of test accuracy in %, time per epoch, peak RSS."""
    acc = [100.0 * r["metrics"]["test"]["accuracy"] for r in records]
    mean, std = _mean_std(acc)
    return {
        "runs": len(acc),
        "acc": acc,
        "acc_mean": mean,
        "acc_std": std,
        "sec_per_epoch": statistics.fmean(r["sec_per_epoch"] for r in records),
        "peak_rss_mib": max(r["peak_rss_mib"] for r in records),
        "lambdas_mean": [
            statistics.fmean(vals) for vals in zip(*(r["lambdas"] for r in records))
        ],
        "num_parameters": records[0]["num_parameters"],
    }

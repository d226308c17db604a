"""The entity-classification grid: validation-based choices, then the 10 test runs.

For every (data set, model):

1. *Selection.*  Each candidate :class:`EntityConfig` is trained ``select_runs`` times; run ``s``
   holds out a stratified 20% of the benchmark's training nodes (split seed ``s``, model seed
   ``s``) and is scored on them.  The config with the highest mean validation accuracy wins
   (ties: lower mean validation cross-entropy, then the earlier candidate).
2. *Test.*  The chosen config is trained on the full benchmark training set from seeds
   ``0..runs-1`` and evaluated once on the benchmark test set after the last epoch.

Every run is one JSON file in a :class:`~gfbgcn.reproduce.store.RunStore` (through the shared
harness, :mod:`gfbgcn.reproduce.harness`), so an interrupted grid resumes where it stopped.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from gfbgcn.core.runinfo import provenance
from gfbgcn.entity.data import HIDDEN, EntityData, stratified_holdout
from gfbgcn.entity.model import EntityConfig
from gfbgcn.entity.train import train_once
from gfbgcn.reproduce.harness import run_pending
from gfbgcn.reproduce.record_schema import RecordSchema, finite, fraction, numbers, whole
from gfbgcn.reproduce.stats import mean_std
from gfbgcn.reproduce.store import RunStore

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


@dataclass
class Selection:
    """Validation summary of one candidate config."""

    config: EntityConfig
    val_acc: list[float] = field(default_factory=list)
    val_loss: list[float] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        acc_mean, acc_std = mean_std(self.val_acc)
        loss_mean, _ = mean_std(self.val_loss)
        return {
            "tag": self.config.tag,
            "config": self.config.to_dict(),
            "runs": len(self.val_acc),
            "val_acc_mean": acc_mean,
            "val_acc_std": acc_std,
            "val_loss_mean": loss_mean,
        }


@dataclass(frozen=True)
class EntityRun:
    """One training run of the grid: a validation run (``select``) or a test run."""

    phase: str  # "select" or "test"
    dataset: str
    config: EntityConfig
    seed: int

    def key(self) -> dict[str, Any]:
        return {"phase": self.phase, "dataset": self.dataset, "model": self.config.model,
                "config": self.config.tag, "seed": self.seed}


def run_once(data: EntityData, run: EntityRun, device: Any = "cpu") -> dict[str, Any]:
    """Train ``run`` on ``device``: on 80 % of train scored on the other 20 % (select), or on
    the whole benchmark training set scored on its test set (test)."""
    if run.phase == "select":
        fit_pos, val_pos = stratified_holdout(data.train_y, VALIDATION_FRACTION, run.seed)
        record = train_once(
            data, run.config, run.seed,
            data.train_idx[fit_pos], data.train_y[fit_pos],
            {"val": (data.train_idx[val_pos], data.train_y[val_pos])}, device,
        )
        record["split"] = {"fit_nodes": int(fit_pos.numel()), "val_nodes": int(val_pos.numel()),
                           "split_seed": run.seed, "fraction": VALIDATION_FRACTION}
    else:
        record = train_once(data, run.config, run.seed, data.train_idx, data.train_y,
                            {"test": (data.test_idx, data.test_y)}, device)
    return {**record, **provenance(), "dataset_info": data.info}


def run_val_test(data: EntityData, config: EntityConfig, seed: int,
                 device: Any = "cpu") -> dict[str, Any]:
    """Train on the 80 % of the training nodes that ``select`` fits on (holdout of seed
    ``seed``) and score both the other 20 % (``val``) and the benchmark test set (``test``):
    the unit of a fidelity row, where each hypothesis is judged on validation and reported on
    test from the same runs."""
    fit_pos, val_pos = stratified_holdout(data.train_y, VALIDATION_FRACTION, seed)
    record = train_once(data, config, seed, data.train_idx[fit_pos], data.train_y[fit_pos],
                        {"val": (data.train_idx[val_pos], data.train_y[val_pos]),
                         "test": (data.test_idx, data.test_y)}, device)
    record["split"] = {"fit_nodes": int(fit_pos.numel()), "val_nodes": int(val_pos.numel()),
                       "split_seed": seed, "fraction": VALIDATION_FRACTION}
    return {**record, **provenance(), "dataset_info": data.info}


def _loss(value: Any) -> str | None:
    """A validation loss: any number (a diverged run's NaN only ranks its config last)."""
    ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    return None if ok else f"expected a number, got {value!r}"


#: The fields the selection and the report read from a record (a record that breaks them is
#: left out with a warning naming the file and the field).
SELECT_SCHEMA: RecordSchema = {"metrics.val.accuracy": fraction, "metrics.val.loss": _loss}
TEST_SCHEMA: RecordSchema = {"metrics.test.accuracy": fraction, "sec_per_epoch": finite(0.0),
                             "peak_rss_mib": finite(0.0), "lambdas": numbers,
                             "num_parameters": whole(0)}


def select(
    data: EntityData,
    configs: Iterable[EntityConfig],
    select_runs: int,
    store: RunStore,
    *,
    run: bool = True,
    device: Any = "cpu",
    **run_options: Any,
) -> tuple[EntityConfig, list[dict[str, Any]]]:
    """Train every config ``select_runs`` times on 80% of train, score on the held-out 20%.

    ``run=False`` only reads the records already in ``store`` (``--report-only``);
    ``run_options`` go to :func:`gfbgcn.reproduce.harness.run_pending` (workers, threads).
    """
    configs = list(configs)
    runs = [EntityRun("select", data.name, cfg, seed)
            for cfg in configs for seed in range(select_runs)]
    if run:
        run_pending(runs, store, lambda r: run_once(data, r, device),
                    desc=f"select {data.name}", **run_options)
    results: dict[EntityConfig, Selection] = {}
    for one in runs:
        record = store.load_checked(one.key(), SELECT_SCHEMA)
        if record is None:  # not run yet, or a bad record (warned)
            continue
        sel = results.setdefault(one.config, Selection(one.config))
        sel.val_acc.append(record["metrics"]["val"]["accuracy"])
        sel.val_loss.append(record["metrics"]["val"]["loss"])
    if not results:
        return configs[0], []
    ranked = sorted(results.values(), key=lambda r: (-round(r.summary()["val_acc_mean"], 12),
                                                     r.summary()["val_loss_mean"]))
    # max mean val accuracy; ties -> lower mean val loss -> earlier candidate (stable sort)
    chosen = ranked[0].config
    return chosen, [r.summary() | {"chosen": r.config == chosen} for r in results.values()]


def test_runs(data: EntityData, cfg: EntityConfig, runs: int, store: RunStore, *,
              run: bool = True, device: Any = "cpu", **run_options: Any
              ) -> list[dict[str, Any]]:
    """Train ``cfg`` on the whole benchmark training set from seeds ``0..runs-1``; test once.

    ``run=False`` only reads the records already in ``store``.
    """
    tests = [EntityRun("test", data.name, cfg, seed) for seed in range(runs)]
    if run:
        run_pending(tests, store, lambda r: run_once(data, r, device), desc=f"test {data.name}",
                    **run_options)
    records = (store.load_checked(t.key(), TEST_SCHEMA) for t in tests)
    return [r for r in records if r is not None]  # not run yet, or a bad record (warned)


def summarize_test(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Mean/std (sample std, ddof 1) of test accuracy in %, time per epoch, peak RSS."""
    acc = [100.0 * r["metrics"]["test"]["accuracy"] for r in records]
    mean, std = mean_std(acc)
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

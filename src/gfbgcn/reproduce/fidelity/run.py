"""Running the fidelity configurations: one record per run through the shared harness."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from gfbgcn.reproduce.fidelity.experiment import Config, Row
from gfbgcn.reproduce.harness import run_pending
from gfbgcn.reproduce.store import RunStore


@dataclass(frozen=True)
class GraphTask:
    """One grid point of one graph configuration on one fold of one split seed."""

    row: str
    config: str
    seed: int
    fold: int
    hidden: int
    layers: int

    def key(self) -> dict[str, Any]:
        return {"row": self.row, "config": self.config, "seed": self.seed, "fold": self.fold,
                "hidden": self.hidden, "layers": self.layers}


@dataclass(frozen=True)
class SeedTask:
    """One seed of one configuration (text, entity)."""

    row: str
    config: str
    seed: int

    def key(self) -> dict[str, Any]:
        return {"row": self.row, "config": self.config, "seed": self.seed}


def tasks(row: Row, configs: Sequence[Config], seeds: int | None = None) -> list[Any]:
    """The runs of ``configs`` of ``row`` (``seeds`` caps each config's seed count)."""
    out: list[Any] = []
    for c in configs:
        if c.existing:
            continue
        n = c.seeds if seeds is None else min(seeds, c.seeds)
        if row.task == "graphs":
            out += [GraphTask(row.id, c.name, s, k, h, n_layers)
                    for s in range(n) for k in range(row.folds)
                    for h in c.config["hidden"] for n_layers in c.config["layers"]]
        else:
            out += [SeedTask(row.id, c.name, s) for s in range(n)]
    return out


def run_row(row: Row, store: RunStore, *, configs: Sequence[str] | None = None,
            seeds: int | None = None, data_dir: str | None = None, device: Any = "cpu",
            workers: int = 1, threads: int | None = 1,
            on_saved: Callable[..., None] | None = None) -> int:
    """Run every missing record of ``row`` (only ``configs`` if given); returns runs made."""
    chosen = [c for c in row.configs if configs is None or c.name in configs]
    todo = tasks(row, chosen, seeds)
    if not todo:
        return 0
    if row.task == "graphs":
        from gfbgcn.reproduce.fidelity.graph_run import graph_runner

        run = graph_runner(row, data_dir, device)
    elif row.task == "text":
        from gfbgcn.reproduce.fidelity.text_run import text_runner

        run = text_runner(row, data_dir, device)
    elif row.task == "entity":
        from gfbgcn.reproduce.fidelity.entity_run import entity_runner

        run = entity_runner(row, data_dir, device)
    else:
        raise ValueError(f"unknown task {row.task!r}")
    return run_pending(todo, store, run, workers=workers, threads=threads, desc=row.id,
                       on_saved=on_saved)


__all__ = ["GraphTask", "SeedTask", "run_row", "tasks"]

"""Entity rows of the fidelity table: one run per seed, scored on validation and test."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gfbgcn.entity.data import load_entities
from gfbgcn.reproduce.entity.experiment import base_config, run_val_test
from gfbgcn.reproduce.fidelity.experiment import Row


def entity_runner(row: Row, data_dir: str | None, device: Any) -> Callable[[Any], dict]:
    """``run(task) -> record`` for an entity row; the data set is loaded once.  A
    configuration is ``{"model", "entity": EntityConfig overrides}`` on the protocol's fixed
    part (:func:`~gfbgcn.reproduce.entity.experiment.base_config`)."""
    data = load_entities(row.dataset, data_dir, allow_download=False)
    configs = {c.name: c for c in row.configs}

    def run(task: Any) -> dict[str, Any]:
        c = configs[task.config].config
        cfg = base_config(row.dataset, c["model"], **c.get("entity", {}))
        rec = run_val_test(data, cfg, task.seed, device)
        # the fields the report reads from a text record (accuracy as a fraction)
        return {**rec, "val": rec["metrics"]["val"], "test": rec["metrics"]["test"],
                "best_epoch": rec["epochs_run"], "lambda": rec["lambdas"] or None,
                "spec": c}

    return run


__all__ = ["entity_runner"]

"""An experiment behind every cell where our numbers differ from the paper's.

The experiments are data: ``hypotheses.json`` beside this module, loaded and checked here.  A
:class:`Row` is one cell of the paper that we miss (a data set and a model); a :class:`Config`
is one hypothesis about why, written as a configuration of the same model (or a reference
model, e.g. Text GCN for a gain).  The data hold settings only, never a measured number:
results come from the run records (one JSON record per run under ``<out>/raw/fidelity/``,
resumable) and the report (:mod:`gfbgcn.reproduce.fidelity.report`) renders them, choosing
per row the configuration with the best mean *validation* accuracy.

Configurations, per task (``"options"``:
:class:`~gfbgcn.reproduce.fidelity.options.ExperimentOptions` fields the task's runner
implements):

* ``graphs``: ``{"model", "hidden", "layers", "train": GraphTrainConfig overrides,
  "options", "select": "val-acc" | "val-loss-mean"}``.  ``hidden`` / ``layers`` are lists (a
  grid); with more than one configuration, ``select`` says how one is chosen per fold:
  ``"val-acc"`` is our graph table's rule (best validation accuracy per fold),
  ``"val-loss-mean"`` PyG's ``benchmark/kernel`` rule (the one grid point with the lowest
  validation loss averaged over the folds).  A seed is a cross-validation split seed; each
  seed runs all ``folds`` folds, and every (seed, fold) is one unit of the mean and std.
* ``text``: ``{"model", "train": text GraphTrainConfig overrides (lr, dropout, weight_decay,
  epochs, patience, layer_options, ...), "options"}``, seeds 0..seeds-1 as in
  ``reproduce text``.
* ``entity``: ``{"model", "entity": EntityConfig overrides}``.
* ``reference`` configurations are shown but never chosen (also every full-grid graph
  configuration: its validation accuracy is a maximum over 20 grid points, so it cannot be
  compared with that of one configuration); ``existing`` ones are read from
  the records of ``reproduce text`` / ``reproduce graphs`` (``<out>/raw/<task>/``, matched on
  ``config["existing"]``; graph records count as split seed 0, which is how they were made)
  instead of being rerun.
* A row's ``paper_gain_over`` names the paper's model its gain is measured against (the
  report shows the paper's gain beside its number).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from gfbgcn.reproduce.fidelity.options import options_of


@dataclass(frozen=True)
class Config:
    """One hypothesis, as a configuration."""

    name: str
    hypothesis: str
    config: dict[str, Any]
    seeds: int = 5
    reference: bool = False
    existing: bool = False
    versus: str = ""  # the configuration its test accuracy is paired with ("": the first
    # reference of the row)
    # False: a change of protocol whose validation accuracy does not compare with the others'
    # (stopping on validation accuracy maximises it), so choose() never picks it
    candidate: bool = True


@dataclass(frozen=True)
class Row:
    """One cell of the paper that we do not reproduce, and the configurations tried on it."""

    id: str
    task: str  # "graphs" | "text" | "entity"
    dataset: str
    # the paper's model of this cell (its key in src/gfbgcn/reproduce/paper_tables/<task>.json)
    model: str
    title: str
    configs: tuple[Config, ...] = field(default_factory=tuple)
    folds: int = 10  # graphs only
    paper_gain_over: str = ""  # the paper's model whose number the gain is measured against


#: The keys a configuration's ``config`` may hold, per task.
CONFIG_KEYS: dict[str, frozenset[str]] = {
    "graphs": frozenset({"model", "hidden", "layers", "train", "options", "select", "existing"}),
    "text": frozenset({"model", "train", "options", "existing"}),
    "entity": frozenset({"model", "entity"}),
}
_ROW_KEYS = frozenset({"id", "task", "dataset", "model", "title", "configs", "folds",
                       "paper_gain_over"})
_CONFIG_FIELDS = frozenset({"name", "hypothesis", "config", "seeds", "reference", "existing",
                            "versus", "candidate"})


def _check_keys(raw: Mapping[str, Any], allowed: frozenset[str], where: str) -> None:
    unknown = sorted(set(raw) - allowed)
    if unknown:
        raise ValueError(f"{where}: unknown keys {unknown} (allowed: {sorted(allowed)})")


def check_config(task: str, c: Config, where: str) -> None:
    """A ``ValueError`` naming ``where`` when ``c`` cannot run (or be read) as a ``task`` row's."""
    _check_keys(c.config, CONFIG_KEYS[task], f"{where}: config")
    if "model" not in c.config:
        raise ValueError(f"{where}: config needs a 'model'")
    if c.seeds < 1:
        raise ValueError(f"{where}: seeds must be >= 1, got {c.seeds}")
    if c.existing != ("existing" in c.config):
        raise ValueError(f"{where}: 'existing' configurations (and only they) need "
                         "config['existing'], the key of the records they stand for")
    if task == "graphs":
        for name in ("hidden", "layers"):
            grid = c.config.get(name)
            if not (isinstance(grid, list) and grid and all(isinstance(v, int) and v >= 1
                                                            for v in grid)):
                raise ValueError(f"{where}: config[{name!r}] must be a list of sizes >= 1")
        if c.config.get("select", "val-acc") not in ("val-acc", "val-loss-mean"):
            raise ValueError(f"{where}: select must be 'val-acc' or 'val-loss-mean'")
    try:
        options_of(c.config, task)
    except (TypeError, ValueError) as e:
        raise ValueError(f"{where}: {e}") from None


def _row(raw: Mapping[str, Any]) -> Row:
    where = f"fidelity row {raw.get('id')!r}"
    _check_keys(raw, _ROW_KEYS, where)
    if raw.get("task") not in CONFIG_KEYS:
        raise ValueError(f"{where}: task must be one of {sorted(CONFIG_KEYS)}")
    configs = []
    for c in raw.get("configs", []):
        _check_keys(c, _CONFIG_FIELDS, f"{where}, configuration {c.get('name')!r}")
        configs.append(Config(**c))
    row = Row(raw["id"], raw["task"], raw["dataset"], raw["model"], raw["title"],
              tuple(configs), folds=raw.get("folds", 10),
              paper_gain_over=raw.get("paper_gain_over", ""))
    names = [c.name for c in row.configs]
    if not names or len(names) != len(set(names)):
        raise ValueError(f"{where}: configuration names must be present and unique")
    if all(c.reference for c in row.configs):
        raise ValueError(f"{where}: every configuration is a reference")
    for c in row.configs:
        check_config(row.task, c, f"{where}, configuration {c.name!r}")
        if c.versus and c.versus not in names:
            raise ValueError(f"{where}, configuration {c.name!r}: versus {c.versus!r} is "
                             "not a configuration of the row")
    return row


def load_rows(text: str | None = None) -> tuple[Row, ...]:
    """The rows of ``hypotheses.json`` (or of the JSON ``text``), checked."""
    if text is None:
        text = resources.files("gfbgcn.reproduce.fidelity").joinpath(
            "hypotheses.json").read_text(encoding="utf-8")
    rows = tuple(_row(raw) for raw in json.loads(text))
    ids = [r.id for r in rows]
    if len(ids) != len(set(ids)):
        raise ValueError(f"fidelity row ids must be unique: {ids}")
    return rows


ROWS: tuple[Row, ...] = load_rows()


def row_by_id(row_id: str, rows: Sequence[Row] = ROWS) -> Row:
    for row in rows:
        if row.id == row_id:
            return row
    raise KeyError(f"unknown fidelity row {row_id!r}; rows: {', '.join(r.id for r in rows)}")


__all__ = ["CONFIG_KEYS", "ROWS", "Config", "Row", "check_config", "load_rows", "row_by_id"]

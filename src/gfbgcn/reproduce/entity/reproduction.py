"""The entity reproduction as a whole (``gfbgcn reproduce entity``): each data set loaded once,
every model's configuration chosen on validation (:func:`~gfbgcn.reproduce.entity.experiment.
select`) and tested (:func:`~gfbgcn.reproduce.entity.experiment.test_runs`), and the report's
rows rebuilt from the records alone.

The command line parses its options into an :class:`EntitySettings`, hands
:meth:`EntityReproduction.run` and :meth:`EntityReproduction.write_report` to the shared loop
(:func:`gfbgcn.reproduce.harness.reproduce`) and prints.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch

from gfbgcn.core.errors import DatasetUnavailableError
from gfbgcn.core.io import atomic_write_text
from gfbgcn.entity.data import EntityData, load_entities
from gfbgcn.entity.model import EntityConfig
from gfbgcn.reproduce import harness
from gfbgcn.reproduce.entity.experiment import (
    LAMBDA_INIT_GRID,
    base_config,
    candidates,
    select,
    summarize_test,
    test_runs,
)
from gfbgcn.reproduce.entity.report import DatasetOutcome, render
from gfbgcn.reproduce.record_schema import text


@dataclass(frozen=True)
class EntitySettings:
    """What one ``reproduce entity`` command runs for every data set.

    Args:
        models: the models compared (``rgcn``, ``gfb-rgcn``).
        seeds: test runs per model (seeds ``0..seeds-1``).
        epochs: the exact epochs of every run (the protocol has no early stopping).
        summarize: GFB-R-GCN's GenVec summarizer.
        select_seeds: validation runs per candidate configuration; 0 skips the selection and
            tests the R-GCN paper's settings.
        lambda_inits: the initial lambda values GFB-R-GCN's selection compares.
    """

    models: tuple[str, ...]
    seeds: int
    epochs: int
    summarize: str = "mean"
    select_seeds: int = 3
    lambda_inits: tuple[float, ...] = LAMBDA_INIT_GRID


def dataset_stats(data: EntityData) -> tuple[dict[str, Any], float]:
    """The data table's row and the majority-class (of training labels) test accuracy in %."""
    counts = torch.bincount(data.test_y, minlength=data.num_classes)
    train_counts = torch.bincount(data.train_y, minlength=data.num_classes)
    majority = 100.0 * float(counts[int(train_counts.argmax())] / data.test_y.numel())
    stats: dict[str, Any] = {
        "num_nodes": data.num_nodes,
        "num_edges": int(data.edge_index.size(1)),
        "num_relations": data.num_relations,
        "num_classes": data.num_classes,
        "train": int(data.train_idx.numel()),
        "test": int(data.test_idx.numel()),
    }
    if "khop" in data.info:
        stats["note"] = (f"{data.info['khop']}-hop subgraph of the labelled nodes "
                         f"(of {data.info['original_num_nodes']:,} nodes)")
    return stats, majority


class EntityReproduction:
    """The grid of one command on the records under ``layout``.

    Each data set is loaded once, for its runs (downloading unless ``offline``) and for the
    report's data table (never downloading: a report is rendered from what is here).
    ``run_options`` go to :func:`gfbgcn.reproduce.harness.run_pending` (``workers``,
    ``threads``, ``device``, ``on_saved``).
    """

    def __init__(self, layout: harness.Layout, settings: EntitySettings,
                 data_dir: str | None = None, *, offline: bool = False,
                 **run_options: Any) -> None:
        self.layout, self.settings = layout, settings
        self.data_dir, self.offline = data_dir, offline
        self.run_options = run_options
        self.store = layout.store()
        self.loaded: dict[str, EntityData] = {}

    def data(self, name: str, download: bool) -> EntityData:
        """The data set, or :class:`~gfbgcn.core.errors.DatasetUnavailableError`."""
        if name not in self.loaded:
            self.loaded[name] = load_entities(name, self.data_dir,
                                              allow_download=download and not self.offline)
        return self.loaded[name]

    def run(self, name: str) -> None:
        """Run the data set's missing selection and test runs (raises
        :class:`~gfbgcn.core.errors.DatasetUnavailableError` when it cannot be had)."""
        loaded = self.data(name, download=True)
        for model in self.settings.models:
            chosen, _ = self.chosen_config(loaded, model, run=True)
            test_runs(loaded, chosen, self.settings.seeds, self.store, **self.run_options)

    def chosen_config(self, data: EntityData, model: str, *, run: bool
                      ) -> tuple[EntityConfig, list[dict[str, Any]]]:
        """The config ``model`` is tested with: chosen on validation from the selection
        records (after running the missing ones when ``run``), or the paper's settings when
        ``select_seeds`` is 0; with the selection's summary."""
        s = self.settings
        overrides: dict[str, Any] = {"epochs": s.epochs, "summarize": s.summarize}
        if s.select_seeds <= 0:
            return base_config(data.name, model, **overrides), []
        configs = candidates(data.name, model, tuple(s.lambda_inits), **overrides)
        options = self.run_options if run else {}
        return select(data, configs, s.select_seeds, self.store, run=run, **options)

    def outcome(self, name: str) -> DatasetOutcome:
        """One data set's rows of the report, from the records alone."""
        outcome = DatasetOutcome(name.lower())
        try:
            loaded = self.data(name, download=False)
        except DatasetUnavailableError as err:
            outcome.unavailable = err.portable
            return outcome
        outcome.stats, outcome.majority_acc = dataset_stats(loaded)
        for model in self.settings.models:
            chosen, selection = self.chosen_config(loaded, model, run=False)
            records = test_runs(loaded, chosen, self.settings.seeds, self.store, run=False)
            if records:
                outcome.models[model] = {"tag": chosen.tag, "config": chosen.to_dict(),
                                         "selection": selection,
                                         "test": summarize_test(records)}
        return outcome

    def devices(self) -> list[str]:
        """The devices that made the records (before ``--device`` existed: the CPU)."""
        return sorted({r["device"] for r in self.store.records({"device": text})}) or ["-"]

    def write_report(self, datasets: list[str], command: str) -> list[DatasetOutcome]:
        """Write ``<out>/entity.md`` for ``datasets`` from the records; their outcomes."""
        outcomes = [self.outcome(name) for name in datasets]
        layout = self.layout
        atomic_write_text(layout.report, render(
            outcomes, list(self.settings.models), command, self.devices(),
            harness.portable(str(layout.raw.resolve())), layout.read_notes(),
            harness.invocations_markdown(layout)))
        return outcomes

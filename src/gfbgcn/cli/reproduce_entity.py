"""``gfbgcn reproduce entity``: R-GCN vs GFB-R-GCN on the RDF entity-classification data sets.

Runs the grid of :mod:`gfbgcn.reproduce.entity.experiment` (validation-based choices, then ``--seeds``
test runs per data set and model) through the shared loop :func:`gfbgcn.reproduce.harness.reproduce`,
resuming from the per-run records under ``<out>/raw/entity/``, and writes ``<out>/entity.md``
from those records after every data set.  Data sets that cannot be loaded (BGS/AM offline) get
a "not run" row.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import torch

from gfbgcn.cli.flags import (
    add_data_dir_argument,
    add_datasets_argument,
    add_deprecated_alias,
    add_epochs_argument,
    add_models_argument,
    add_results_arguments,
    add_seeds_argument,
    add_threads_argument,
    add_workers_argument,
    threads_of,
)
from gfbgcn.core.errors import DatasetUnavailableError
from gfbgcn.cli.runtime.argtypes import float_in, int_in
from gfbgcn.cli.runtime.device import add_device_argument, device_from_args
from gfbgcn.cli.runtime.invocation import invocation
from gfbgcn.core.io import atomic_write_text
from gfbgcn.entity.data import (
    DATASETS,
    EntityData,
    load_entities,
)
from gfbgcn.entity.model import MODELS
from gfbgcn.nn.genvec import SUMMARIZERS
from gfbgcn.reproduce import harness
from gfbgcn.reproduce.entity.experiment import (
    LAMBDA_INIT_GRID,
    EntityConfig,
    base_config,
    candidates,
    select,
    summarize_test,
    test_runs,
)
from gfbgcn.reproduce.entity.report import DatasetOutcome, render
from gfbgcn.reproduce.record_schema import text
from gfbgcn.reproduce.store import RunStore


def reproduce_entity_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``gfbgcn reproduce entity``."""
    add_data_dir_argument(parser)
    add_datasets_argument(parser, DATASETS, choices=False)
    add_models_argument(parser, MODELS)
    add_seeds_argument(parser, 10)
    add_epochs_argument(parser, 50)
    parser.add_argument("--summarize", default="mean", choices=SUMMARIZERS,
                        help="GenVec summarizer of GFB-R-GCN (paper: mean)")
    parser.add_argument("--select-seeds", type=int_in(0), default=3, metavar="N",
                        help="runs (seeds 0..N-1) per candidate config on the 80/20 validation "
                        "split; 0 skips selection and uses the R-GCN paper's settings (3)")
    inits = parser.add_argument(
        "--lambda-inits", type=float_in(), nargs="+", default=list(LAMBDA_INIT_GRID), metavar="L",
        help="initial lambda values GFB-R-GCN's selection compares (a grid: "
        f"{' '.join(f'{v:g}' for v in LAMBDA_INIT_GRID)})")
    add_deprecated_alias(parser, "--lambda-init", inits)
    parser.add_argument("--offline", action="store_true",
                        help="never try to download a missing data set")
    add_results_arguments(parser)
    add_workers_argument(parser)
    add_threads_argument(parser)
    add_device_argument(parser)


def _dataset_stats(data: EntityData) -> tuple[dict[str, Any], float]:
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


class _Data:
    """The data sets, each loaded once: for its runs (downloading unless ``--offline``) and for
    the report's data table (never downloading: a report is rendered from what is here)."""

    def __init__(self, data_dir: str | None, offline: bool) -> None:
        self.data_dir, self.offline = data_dir, offline
        self.loaded: dict[str, EntityData] = {}

    def get(self, name: str, download: bool) -> EntityData:
        """The data set, or :class:`DatasetUnavailableError`."""
        if name not in self.loaded:
            self.loaded[name] = load_entities(name, self.data_dir,
                                              allow_download=download and not self.offline)
        return self.loaded[name]


def _chosen_config(data: EntityData, model: str, args: argparse.Namespace,
                   store: RunStore, options: dict[str, Any]
                   ) -> tuple[EntityConfig, list[dict[str, Any]]]:
    """The config ``model`` is tested with: chosen on validation (``--select-seeds``) from the
    selection records, after running the missing ones when ``options["run"]``."""
    overrides: dict[str, Any] = {"epochs": args.epochs, "summarize": args.summarize}
    if args.select_seeds <= 0:
        return base_config(data.name, model, **overrides), []
    configs = candidates(data.name, model, tuple(args.lambda_inits), **overrides)
    return select(data, configs, args.select_seeds, store, **options)


def _outcome(name: str, data: _Data, args: argparse.Namespace,
             store: RunStore) -> DatasetOutcome:
    """One data set's rows of the report, from the records alone."""
    outcome = DatasetOutcome(name.lower())
    try:
        loaded = data.get(name, download=False)
    except DatasetUnavailableError as err:
        outcome.unavailable = err.portable
        return outcome
    outcome.stats, outcome.majority_acc = _dataset_stats(loaded)
    for model in args.models:
        chosen, selection = _chosen_config(loaded, model, args, store, {"run": False})
        records = test_runs(loaded, chosen, args.seeds, store, run=False)
        if records:
            outcome.models[model] = {"tag": chosen.tag, "config": chosen.to_dict(),
                                     "selection": selection, "test": summarize_test(records)}
    return outcome


def _devices(layout: harness.Layout) -> list[str]:
    """The devices that made the records (before ``--device`` existed: the CPU)."""
    return sorted({r["device"] for r in layout.store().records({"device": text})}) or ["-"]


def reproduce_entity(args: argparse.Namespace) -> int:
    """Run the grid and write the report; returns 0, or 1 when no data set could be run."""
    device = device_from_args(args)  # an absent GPU fails here, before any work
    layout = harness.Layout(args.out, "entity")
    store, data = layout.store(), _Data(args.data_dir, args.offline)
    command, threads = invocation(args, device), threads_of(args)
    outcomes: list[DatasetOutcome] = []

    def render_report() -> None:
        outcomes[:] = [_outcome(name, data, args, store) for name in args.datasets]
        atomic_write_text(layout.report, render(
            outcomes, list(args.models), command.command, _devices(layout),
            harness.portable(str(layout.raw.resolve())), layout.read_notes(),
            harness.invocations_markdown(layout)))

    options = {"workers": args.workers, "threads": threads, "device": device,
               "on_saved": harness.Throttle(render_report)}

    def run(name: str) -> bool:
        try:
            loaded = data.get(name, download=True)
        except DatasetUnavailableError as err:
            print(f"{name}: not run: {err}", file=sys.stderr)
            return False
        for model in args.models:
            chosen, _ = _chosen_config(loaded, model, args, store, options)
            test_runs(loaded, chosen, args.seeds, store, **options)
        return True

    harness.reproduce(layout, args.datasets, run, render_report, command,
                      report_only=args.report_only, threads=threads)
    print(f"wrote {layout.report}")
    return 0 if any(o.unavailable is None for o in outcomes) else 1

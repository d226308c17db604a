"""``gfbgcn reproduce entity``: R-GCN vs GFB-R-GCN on the RDF entity-classification data sets.

Runs the grid of :mod:`gfbgcn.entity.experiment` (validation-based choices, then ``--seeds``
test runs per data set and model) through the shared harness, resuming from the per-run
records under ``<out>/raw/entity/``, and writes ``<out>/entity.md`` after every data set.
Data sets that cannot be loaded (BGS/AM offline) get a "not run" row.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

import torch

from gfbgcn.core import harness
from gfbgcn.core.device import device_from_args
from gfbgcn.core.io import atomic_write_text
from gfbgcn.core.runinfo import torch_threads
from gfbgcn.entity.data import (
    DATASETS,
    EntityData,
    EntityDataUnavailable,
    load_entities,
)
from gfbgcn.entity.experiment import (
    LAMBDA_INIT_GRID,
    base_config,
    candidates,
    select,
    summarize_test,
    test_runs,
)
from gfbgcn.entity.model import MODELS
from gfbgcn.entity.report import DatasetOutcome, render
from gfbgcn.nn.genvec import SUMMARIZERS


def reproduce_entity_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``gfbgcn reproduce entity``."""
    harness.add_arguments(parser, datasets=DATASETS, models=MODELS, dataset_choices=False,
                          seeds=10, epochs=50)
    parser.add_argument("--summarize", default="mean", choices=SUMMARIZERS,
                        help="GenVec summarizer of GFB-R-GCN (paper: mean)")
    parser.add_argument("--select-seeds", type=int, default=3, metavar="N",
                        help="runs (seeds 0..N-1) per candidate config on the 80/20 validation "
                        "split; 0 skips selection and uses the R-GCN paper's settings (3)")
    parser.add_argument("--lambda-init", type=float, nargs="+", default=list(LAMBDA_INIT_GRID),
                        metavar="L", help="initial lambda values GFB-R-GCN's selection compares")
    parser.add_argument("--offline", action="store_true",
                        help="never try to download a missing data set")


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


def _run_dataset(data: EntityData, args: argparse.Namespace, layout: harness.Layout,
                 outcome: DatasetOutcome, write, device: torch.device) -> None:
    """Selection and test runs of every model on one data set (records only, with
    ``--report-only``)."""
    overrides: dict[str, Any] = {"epochs": args.epochs, "summarize": args.summarize}
    options = {"workers": args.workers, "threads": args.threads, "run": not args.report_only,
               "device": device}
    store = layout.store()
    for model in args.models:
        if args.select_seeds > 0:
            chosen, selection = select(
                data, candidates(data.name, model, tuple(args.lambda_init), **overrides),
                args.select_seeds, store, **options,
            )
        else:
            chosen, selection = base_config(data.name, model, **overrides), []
        records = test_runs(data, chosen, args.seeds, store, **options)
        if records:
            outcome.models[model] = {"tag": chosen.tag, "config": chosen.to_dict(),
                                     "selection": selection, "test": summarize_test(records)}
        write()


def _devices(layout: harness.Layout) -> list[str]:
    """The devices that made the records (before ``--device`` existed: the CPU)."""
    return sorted({r.get("device", "cpu") for r in layout.store().records()}) or ["-"]


def reproduce_entity(args: argparse.Namespace) -> int:
    """Run the grid and write the report; returns 0, or 1 when no data set could be run."""
    device = device_from_args(args)  # an absent GPU fails here, before any work
    layout = harness.Layout(args.out, "entity")
    log = None if args.report_only else harness.Invocations(layout, args)
    outcomes: list[DatasetOutcome] = []
    command = harness.command_line(args)

    def write() -> None:
        text = render(outcomes, list(args.models), command, _devices(layout),
                      harness.portable(str(layout.raw.resolve())), layout.read_notes(),
                      harness.invocations_markdown(layout))
        atomic_write_text(layout.report, text)

    with torch_threads(args.threads):
        for name in args.datasets:
            outcome = DatasetOutcome(name.lower())
            outcomes.append(outcome)
            start = time.perf_counter()
            try:
                data = load_entities(name, args.data_dir, allow_download=not args.offline)
            except EntityDataUnavailable as err:
                outcome.unavailable = err.portable
                print(f"{name}: not run: {err}", file=sys.stderr)
                write()
                continue
            outcome.stats, outcome.majority_acc = _dataset_stats(data)
            _run_dataset(data, args, layout, outcome, write, device)
            if log is not None:
                log.add_seconds(outcome.name, time.perf_counter() - start)
    if log is not None:
        log.finish()
    write()
    print(f"wrote {layout.report}")
    return 0 if any(o.unavailable is None for o in outcomes) else 1

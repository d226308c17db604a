"""``gfbgcn reproduce inductive``: inductive (new documents) against transductive accuracy
(grid and report in :mod:`gfbgcn.reproduce.text`), through :func:`gfbgcn.reproduce.harness.reproduce`."""

from __future__ import annotations

import argparse

from gfbgcn.cli.flags import (
    add_data_dir_argument,
    add_datasets_argument,
    add_epochs_argument,
    add_models_argument,
    add_results_arguments,
    add_seeds_argument,
    add_threads_argument,
    add_workers_argument,
    threads_of,
)
from gfbgcn.cli.runtime.device import add_device_argument, device_from_args
from gfbgcn.cli.runtime.invocation import invocation
from gfbgcn.reproduce import harness
from gfbgcn.text.corpus.benchmarks import BENCHMARKS
from gfbgcn.text.train.models import SECOND_LAYERS


def reproduce_inductive_arguments(parser: argparse.ArgumentParser) -> None:
    add_data_dir_argument(parser)
    add_datasets_argument(parser, BENCHMARKS)
    add_models_argument(parser, SECOND_LAYERS, ("gfb-max", "gcn"))
    add_seeds_argument(parser, 2)
    add_epochs_argument(parser, 200)
    add_results_arguments(parser)
    add_workers_argument(parser)
    add_threads_argument(parser)
    add_device_argument(parser)


def reproduce_inductive(args: argparse.Namespace) -> int:
    """Inductive (new documents) against transductive accuracy -> ``<out>/inductive.md``."""
    from gfbgcn.reproduce.text.grid import inductive_grid, run_inductive_grid
    from gfbgcn.reproduce.text.inductive_report import render_inductive_report

    device = device_from_args(args)  # an absent GPU fails here, before any work
    layout = harness.Layout(args.out, "inductive")
    threads = threads_of(args)

    def render() -> None:
        render_inductive_report(layout)

    def run(dataset: str) -> None:
        specs = inductive_grid([dataset], args.models, range(args.seeds))
        run_inductive_grid(specs, layout.store(), args.data_dir, args.epochs,
                           workers=args.workers, threads=threads,
                           on_saved=harness.Throttle(render), device=device)

    harness.reproduce(layout, args.datasets, run, render, invocation(args, device),
                      report_only=args.report_only, threads=threads)
    print(f"wrote {layout.report}")
    return 0

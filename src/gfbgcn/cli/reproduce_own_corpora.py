"""``gfbgcn reproduce own-corpora``: paper defaults, ``--auto``, the linear baseline, the combined
predictor and pretrained features on the two extra corpora and the four benchmarks (grid and
report in :mod:`gfbgcn.text.search`), through :func:`gfbgcn.reproduce.harness.reproduce`."""

from __future__ import annotations

import argparse

from gfbgcn.cli.flags import (
    add_data_dir_argument,
    add_datasets_argument,
    add_epochs_argument,
    add_results_arguments,
    add_seeds_argument,
    add_threads_argument,
    add_workers_argument,
    threads_of,
)
from gfbgcn.cli.runtime.device import add_device_argument, device_from_args
from gfbgcn.cli.runtime.invocation import invocation
from gfbgcn.reproduce import harness


def reproduce_own_corpora_arguments(parser: argparse.ArgumentParser) -> None:
    from gfbgcn.reproduce.own_corpora.experiment import OWN_DATASETS

    add_data_dir_argument(parser)
    add_datasets_argument(parser, OWN_DATASETS)
    add_seeds_argument(parser, 5)
    add_epochs_argument(parser, 200)
    add_results_arguments(parser)
    add_workers_argument(parser)
    add_threads_argument(parser)
    add_device_argument(parser)


def reproduce_own_corpora(args: argparse.Namespace) -> int:
    """One ``--auto`` search per data set and seed -> ``<out>/own-corpora.md``."""
    from gfbgcn.reproduce.own_corpora.experiment import run_own_grid
    from gfbgcn.reproduce.own_corpora.report import render_own_report

    device = device_from_args(args)  # an absent GPU fails here, before any work
    searches = harness.Layout(args.out, "own-corpora")

    def render() -> None:
        render_own_report(searches)

    # a search takes minutes: the report follows every record
    options = {"workers": args.workers, "threads": threads_of(args), "device": device,
               "on_saved": lambda *_: render()}

    def run(dataset: str) -> None:
        run_own_grid([dataset], range(args.seeds), searches.store(), args.data_dir,
                     args.epochs, **options)

    harness.reproduce(searches, args.datasets, run, render, invocation(args, device),
                      report_only=args.report_only, threads=options["threads"])
    print(f"wrote {searches.report}")
    return 0

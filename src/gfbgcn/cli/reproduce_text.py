"""``gfbgcn reproduce text``: the paper's text-classification tables (grid and report in
:mod:`gfbgcn.reproduce.text`), run through the shared loop :func:`gfbgcn.reproduce.harness.reproduce`."""

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
from gfbgcn.core.extras import require
from gfbgcn.reproduce import harness
from gfbgcn.text.corpus.benchmarks import BENCHMARKS
from gfbgcn.text.train.models import MODELS

#: Models of ``reproduce text`` when ``--models`` is not given (the paper's table).
TEXT_MODELS = ("gcn", "gfb-max", "gfb-mean", "gfb-diag", "gfb-topk",
               "fbp", "cbp", "bp", "sqrt", "sgc", "gin")


def reproduce_text_arguments(parser: argparse.ArgumentParser) -> None:
    add_data_dir_argument(parser)
    add_datasets_argument(parser, BENCHMARKS)
    add_models_argument(parser, MODELS, TEXT_MODELS)
    add_seeds_argument(parser, 10)
    add_epochs_argument(parser, 200)
    parser.add_argument("--variants", nargs="+", default=[], metavar="VARIANT",
                        help="also run these variants of every model they apply to: "
                             "fast (GFB MaxVec/TopKVec), lambda0, lam0init (GFB models), "
                             "eps-1, eps-1-fixed (Text GIN), lr0.2 (Text SGC), l2 (l2 on the second-order "
                             "term: GFB, FBP, BP), fast-l2 (both: GFB MaxVec/TopKVec), "
                             "patience50, stopacc (all models)")
    add_results_arguments(parser)
    add_workers_argument(parser)
    add_threads_argument(parser)
    add_device_argument(parser)


def reproduce_text(args: argparse.Namespace) -> int:
    """The paper's text tables: run the grid (resumable), write ``<out>/text.md``."""
    from gfbgcn.reproduce.text.grid import grid, run_text_grid
    from gfbgcn.reproduce.text.report import render_text_report

    # an absent GPU fails here, before any work; --workers N share one GPU (spawned processes)
    device = device_from_args(args, gpu_workers=True)
    # the report draws a figure after runs: without matplotlib, fail before the first run
    require("matplotlib", "figures", "gfbgcn reproduce text")
    layout = harness.Layout(args.out, "text")
    command = invocation(args, device)
    threads = threads_of(args)

    def render() -> None:
        render_text_report(layout, command.command)

    def run(dataset: str) -> None:
        specs = grid([dataset], args.models, range(args.seeds), args.variants)
        run_text_grid(specs, layout.store(), args.data_dir, args.epochs, workers=args.workers,
                      threads=threads, on_saved=harness.Throttle(render), device=device)

    harness.reproduce(layout, args.datasets, run, render, command, report_only=args.report_only,
                      threads=threads)
    print(f"wrote {layout.report}")
    return 0

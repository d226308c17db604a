"""``gfbgcn reproduce text``, ``reproduce inductive`` and ``reproduce own-corpora``.

Each verb is a pair ``<verb>_arguments(parser)`` / ``<verb>(args) -> exit status``, wired by
:mod:`gfbgcn.cli`; the grids and reports live in :mod:`gfbgcn.text.reproduce` and
:mod:`gfbgcn.text.auto`."""

from __future__ import annotations

import argparse
import time

from gfbgcn.core import harness
from gfbgcn.core.device import device_from_args
from gfbgcn.core.runinfo import torch_threads
from gfbgcn.text.corpus.benchmarks import BENCHMARKS
from gfbgcn.text.train.models import MODELS, SECOND_LAYERS

#: Models of ``reproduce text`` when ``--models`` is not given (the paper's table).
TEXT_MODELS = ("gcn", "gfb-max", "gfb-mean", "gfb-diag", "gfb-topk",
               "fbp", "cbp", "bp", "sqrt", "sgc", "gin")


# ---------------------------------------------------------------------------------------------
# Corpus options shared by data, train


# ---------------------------------------------------------------------------------------------
# gfbgcn data stats | data build


# ---------------------------------------------------------------------------------------------
# gfbgcn train


# ---------------------------------------------------------------------------------------------
# gfbgcn reproduce text | reproduce inductive


def reproduce_text_arguments(parser: argparse.ArgumentParser) -> None:
    harness.add_arguments(parser, datasets=BENCHMARKS, models=MODELS,
                          default_models=TEXT_MODELS, seeds=10, epochs=200)
    parser.add_argument("--variants", nargs="+", default=[], metavar="VARIANT",
                        help="also run these variants of every model they apply to: "
                             "fast (GFB MaxVec/TopKVec), lambda0, lam0init (GFB models), "
                             "eps-1 (Text GIN), lr0.2 (Text SGC), stopacc")


def reproduce_text(args: argparse.Namespace) -> int:
    """The paper's text tables: run the grid (resumable), write ``<out>/text.md``."""
    from gfbgcn.text.reproduce.text_grid import grid, run_text_grid
    from gfbgcn.text.reproduce.text_report import render_text_report

    device = device_from_args(args)
    layout = harness.Layout(args.out, "text")
    command = harness.command_line(args)

    def report(*_) -> None:
        render_text_report(layout, command)

    def run(dataset: str) -> None:
        specs = grid([dataset], args.models, range(args.seeds), args.variants)
        run_text_grid(specs, layout.store(), args.data_dir, args.epochs, workers=args.workers,
                      threads=args.threads, on_saved=harness.Throttle(report), device=device)

    _run_datasets(args, layout, run, report)
    return 0


def _run_datasets(args: argparse.Namespace, layout: harness.Layout, run, report,
                  wrote=None) -> None:
    """``run(dataset)`` for each of ``--datasets`` (logged with its wall time in ``layout``),
    then the report (``wrote``: its path, default ``layout.report``); with ``--report-only``
    only the report."""
    with torch_threads(args.threads):
        if not args.report_only:
            log = harness.Invocations(layout, args)
            for dataset in args.datasets:
                start = time.perf_counter()
                run(dataset)
                log.add_seconds(dataset, time.perf_counter() - start)
            log.finish()
        report()
    print(f"wrote {wrote or layout.report}")


def reproduce_inductive_arguments(parser: argparse.ArgumentParser) -> None:
    harness.add_arguments(parser, datasets=BENCHMARKS, models=SECOND_LAYERS,
                          default_models=("gfb-max", "gcn"), seeds=2, epochs=200)


def reproduce_inductive(args: argparse.Namespace) -> int:
    """Inductive (new documents) against transductive accuracy -> ``<out>/inductive.md``."""
    from gfbgcn.text.reproduce.inductive_report import render_inductive_report
    from gfbgcn.text.reproduce.text_grid import inductive_grid, run_inductive_grid

    device = device_from_args(args)
    layout = harness.Layout(args.out, "inductive")

    def report(*_) -> None:
        render_inductive_report(layout)

    def run(dataset: str) -> None:
        specs = inductive_grid([dataset], args.models, range(args.seeds))
        run_inductive_grid(specs, layout.store(), args.data_dir, args.epochs,
                           workers=args.workers, threads=args.threads,
                           on_saved=harness.Throttle(report), device=device)

    _run_datasets(args, layout, run, report)
    return 0


def reproduce_own_corpora_arguments(parser: argparse.ArgumentParser) -> None:
    from gfbgcn.text.auto.experiment import OWN_DATASETS

    harness.add_arguments(parser, datasets=OWN_DATASETS, models=("auto",), seeds=5, epochs=200)


def reproduce_own_corpora(args: argparse.Namespace) -> int:
    """Paper defaults, --auto, TF-IDF + LR, combined and pretrained features ->
    ``<out>/own-corpora.md``."""
    from gfbgcn.text.auto.experiment import run_own_grid
    from gfbgcn.text.auto.report import render_own_report

    layout = harness.Layout(args.out, "own-corpora")

    def report(*_) -> None:
        render_own_report(layout)

    def run(dataset: str) -> None:
        run_own_grid([dataset], range(args.seeds), layout.store(), args.data_dir, args.epochs,
                     threads=args.threads, on_saved=report)

    _run_datasets(args, layout, run, report)
    return 0

"""``gfbgcn reproduce graphs``: the paper's graph-classification table (supplement, tab:GC).

Runs every (dataset, model, fold, hidden, layers) of the requested grid through the shared loop
:func:`gfbgcn.reproduce.harness.reproduce` (fold-major within a data set), skips runs already under
``<out>/raw/graphs/`` and rewrites ``<out>/graphs.md`` at most once a minute while running and
after every data set.  See :mod:`gfbgcn.graph_classification.train` for the protocol and
:mod:`gfbgcn.graph_classification.data` for the node features; ``--datasets`` takes any TU-format data set
under the data root.
"""

from __future__ import annotations

import argparse

from gfbgcn.cli.flags import (
    add_data_dir_argument,
    add_datasets_argument,
    add_deprecated_alias,
    add_epochs_argument,
    add_models_argument,
    add_results_arguments,
    add_threads_argument,
    add_workers_argument,
    threads_of,
)
from gfbgcn.cli.runtime.argtypes import float_in, int_in, positive_int
from gfbgcn.cli.runtime.device import add_device_argument, device_from_args
from gfbgcn.cli.runtime.invocation import invocation
from gfbgcn.core.validate import SEED_MAX, range_text
from gfbgcn.graph_classification.data import DATASETS, load_graph_dataset
from gfbgcn.graph_classification.model import MODELS
from gfbgcn.graph_classification.train import TrainConfig
from gfbgcn.reproduce import harness
from gfbgcn.reproduce.graphs.experiment import HIDDEN_GRID, LAYERS_GRID, grid, run_graph_grid
from gfbgcn.reproduce.graphs.report import write_report
from gfbgcn.text.params import LR_MAX


def _words(values: tuple[int, ...]) -> str:
    return " ".join(map(str, values))


def reproduce_graphs_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``gfbgcn reproduce graphs``."""
    add_data_dir_argument(parser)
    add_datasets_argument(parser, DATASETS, choices=False)
    add_models_argument(parser, MODELS)
    add_epochs_argument(parser, 100)
    hiddens = parser.add_argument(
        "--hiddens", nargs="+", type=positive_int, default=list(HIDDEN_GRID),
        metavar="H", help=f"hidden sizes of the grid ({_words(HIDDEN_GRID)})")
    add_deprecated_alias(parser, "--hidden", hiddens)
    parser.add_argument("--layers", nargs="+", type=positive_int,
                        default=list(LAYERS_GRID), metavar="L",
                        help=f"layer counts of the grid ({_words(LAYERS_GRID)})")
    parser.add_argument("--folds", type=positive_int, default=10, metavar="K",
                        help="K of stratified K-fold cross-validation (10)")
    parser.add_argument("--fold-limit", type=positive_int, default=None, metavar="N",
                        help="run only the first N of the K folds")
    parser.add_argument("--seed", type=int_in(0, SEED_MAX), default=0, metavar="S",
                        help="seed of the folds; fold k trains from seed S + k (0; "
                        f"{range_text(0, SEED_MAX)})")
    parser.add_argument("--patience", type=positive_int, default=20, metavar="N",
                        help="early-stopping patience (20)")
    batch = parser.add_argument("--graph-batch", type=positive_int, default=64,
                                metavar="N", help="graphs per training mini-batch (64)")
    add_deprecated_alias(parser, "--batch-size", batch)
    parser.add_argument("--lr", type=float_in(0, LR_MAX, low_open=True), default=0.01,
                        help=f"Adam learning rate (0.01; {range_text(0, LR_MAX, True)})")
    add_results_arguments(parser)
    add_workers_argument(parser)
    add_threads_argument(parser)
    add_device_argument(parser)


def reproduce_graphs(args: argparse.Namespace) -> int:
    """Run the grid, store each run, keep ``<out>/graphs.md`` up to date."""
    device = device_from_args(args)  # an absent GPU fails here, before any work
    layout = harness.Layout(args.out, "graphs")
    threads = threads_of(args)
    cfg = TrainConfig(epochs=args.epochs, patience=args.patience, lr=args.lr,
                      batch_size=args.graph_batch)

    def render() -> None:
        write_report(layout)

    def run(name: str) -> None:
        ds = load_graph_dataset(name, args.data_dir)
        runs = grid(ds, args.models, args.folds, args.fold_limit, args.hiddens, args.layers,
                    args.seed)
        run_graph_grid(ds, runs, layout.store(), cfg, args.folds, args.seed,
                       workers=args.workers, threads=threads,
                       on_saved=harness.Throttle(render), device=device)

    harness.reproduce(layout, args.datasets, run, render, invocation(args, device),
                      report_only=args.report_only, threads=threads,
                      log_extra={"train_config": cfg.__dict__.copy()})
    print(f"wrote {layout.report}")
    return 0

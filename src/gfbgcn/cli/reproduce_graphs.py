"""``gfbgcn reproduce graphs``: the paper's graph-classification table (supplement, tab:GC).

Runs every (dataset, model, fold, hidden, layers) of the requested grid through the shared
harness (fold-major within a data set), skips runs already under ``<out>/raw/graphs/`` and
rewrites ``<out>/graphs.md`` at most once a minute while running and after every data set.
See :mod:`gfbgcn.graphcls.train` for the protocol and :mod:`gfbgcn.graphcls.data` for the node
features; ``--datasets`` takes any TU-format data set under the data root.
"""

from __future__ import annotations

import argparse
import time

from gfbgcn.core import harness
from gfbgcn.core.device import device_from_args
from gfbgcn.core.runinfo import torch_threads
from gfbgcn.graphcls.data import DATASETS, load_graph_dataset
from gfbgcn.graphcls.experiment import HIDDEN_GRID, LAYERS_GRID, grid, run_graph_grid
from gfbgcn.graphcls.model import MODELS
from gfbgcn.graphcls.report import write_report
from gfbgcn.graphcls.train import TrainConfig


def reproduce_graphs_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``gfbgcn reproduce graphs``."""
    harness.add_arguments(parser, datasets=DATASETS, models=MODELS, dataset_choices=False,
                          seeds=None, epochs=100)
    parser.add_argument("--hidden", nargs="+", type=harness.positive_int,
                        default=list(HIDDEN_GRID), help="hidden sizes of the grid (16 32 64 128)")
    parser.add_argument("--layers", nargs="+", type=harness.positive_int,
                        default=list(LAYERS_GRID), help="layer counts of the grid (1 2 3 4 5)")
    parser.add_argument("--folds", type=harness.positive_int, default=10,
                        help="K of stratified K-fold cross-validation (10)")
    parser.add_argument("--fold-limit", type=harness.positive_int, default=None, metavar="N",
                        help="run only the first N of the K folds")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of the folds; fold k trains from seed + k (0)")
    parser.add_argument("--patience", type=harness.positive_int, default=20,
                        help="early-stopping patience (20)")
    parser.add_argument("--batch-size", type=harness.positive_int, default=64,
                        help="graphs per mini-batch (64)")
    parser.add_argument("--lr", type=float, default=0.01, help="Adam learning rate (0.01)")


def reproduce_graphs(args: argparse.Namespace) -> int:
    """Run the grid, store each run, keep ``<out>/graphs.md`` up to date."""
    device = device_from_args(args)  # an absent GPU fails here, before any work
    layout = harness.Layout(args.out, "graphs")

    def report(*_) -> None:
        write_report(layout)

    if args.report_only:
        report()
        print(f"wrote {layout.report}")
        return 0
    cfg = TrainConfig(epochs=args.epochs, patience=args.patience, lr=args.lr,
                      batch_size=args.batch_size)
    log = harness.Invocations(layout, args)
    log.entry["train_config"] = cfg.__dict__.copy()
    throttle = harness.Throttle(report)
    with torch_threads(args.threads):
        for name in args.datasets:
            start = time.perf_counter()
            ds = load_graph_dataset(name, args.data_dir)
            runs = grid(ds, args.models, args.folds, args.fold_limit, args.hidden, args.layers,
                        args.seed)
            run_graph_grid(ds, runs, layout.store(), cfg, args.folds, args.seed,
                           workers=args.workers, threads=args.threads, on_saved=throttle,
                           device=device)
            log.add_seconds(name, time.perf_counter() - start)
            report()
    log.finish()
    report()
    print(f"wrote {layout.report}")
    return 0

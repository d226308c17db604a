"""``gfbgcn reproduce graphs``: the paper's graph-classification table (supplement, tab:GC).

Runs every (dataset, model, fold, hidden, layers) of the requested grid (fold-major within a
data set, so an interrupted run leaves all models on the same folds), skips runs already in
``--raw-dir`` (one JSON per run via :class:`~gfbgcn.train.store.RunStore`) and rewrites
``--out`` atomically at most once a minute while running and after every data set.  See :mod:`gfbgcn.graphcls.protocol` for the
protocol and :mod:`gfbgcn.graphcls.data` for the node features.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import shlex
import sys
import time
from dataclasses import asdict
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import torch
from tqdm import tqdm

from gfbgcn.graphcls.batching import GraphBatcher
from gfbgcn.graphcls.data import DATASETS, GraphDataset, load_graph_dataset
from gfbgcn.graphcls.models import MODELS
from gfbgcn.graphcls.protocol import Split, TrainConfig, make_splits, train_one
from gfbgcn.graphcls.report import INVOCATIONS_FILE, load_invocations, write_report
from gfbgcn.io import atomic_write_json
from gfbgcn.runinfo import machine_info, package_versions
from gfbgcn.train.store import RunStore

_STATE: dict[str, Any] = {}  # dataset shared with forked workers
REPORT_INTERVAL_S = 60.0  # the report re-reads every record; don't rewrite it after each run


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``gfbgcn reproduce graphs``."""
    parser.add_argument("--data-dir", default=None, help="data root (default $GFBGCN_DATA)")
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=DATASETS)
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=MODELS)
    parser.add_argument("--hidden", nargs="+", type=int, default=[16, 32, 64, 128])
    parser.add_argument("--layers", nargs="+", type=int, default=[1, 2, 3, 4, 5])
    parser.add_argument("--folds", type=int, default=10, help="K of stratified K-fold CV")
    parser.add_argument(
        "--fold-limit", type=int, default=None, help="run only the first N of the K folds"
    )
    parser.add_argument("--epochs", type=int, default=100, help="maximum epochs per run")
    parser.add_argument("--patience", type=int, default=20, help="early-stopping patience")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("docs/results/graphs.md"))
    parser.add_argument("--raw-dir", type=Path, default=Path("docs/results/raw/graphs"))
    parser.add_argument("--workers", type=int, default=1, help="parallel processes")
    parser.add_argument("--threads", type=int, default=1, help="torch threads per process")
    parser.add_argument("--report-only", action="store_true",
                        help="only rewrite --out from the runs stored in --raw-dir")


def _run_task(task: tuple[str, Split, int, int, int]) -> tuple[tuple[str, int, int, int], dict]:
    model, split, hidden, layers, seed = task
    ds: GraphDataset = _STATE["dataset"]
    cfg: TrainConfig = _STATE["cfg"]
    torch.set_num_threads(_STATE["threads"])
    rec = train_one(
        model, ds.graphs, split, ds.num_features, ds.num_classes, hidden, layers, cfg, seed,
        batcher=_STATE["batcher"],
    )
    return (model, split.fold, hidden, layers), rec


def run(args: argparse.Namespace) -> int:
    """Run the grid, store each run, keep ``args.out`` up to date.  Returns an exit code."""
    torch.set_num_threads(args.threads)
    store = RunStore(args.raw_dir)
    if args.report_only:
        write_report(args.out, run_records(store), args.raw_dir)
        print(f"wrote {args.out}")
        return 0
    args.raw_dir.mkdir(parents=True, exist_ok=True)
    cfg = TrainConfig(
        epochs=args.epochs, patience=args.patience, lr=args.lr, batch_size=args.batch_size
    )
    invocations = load_invocations(args.raw_dir)
    inv: dict[str, Any] = {
        "command": _command_line(),
        "argv": sys.argv,
        "started": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "finished": None,
        "wall_s": {},
        "workers": args.workers,
        "train_config": asdict(cfg),
        "machine": machine_info(),
        "versions": package_versions(),
    }
    invocations.append(inv)
    inv_path = args.raw_dir / INVOCATIONS_FILE

    def save_inv() -> None:
        atomic_write_json(inv_path, invocations)

    save_inv()
    last_report = [time.monotonic()]

    def maybe_report() -> None:
        if time.monotonic() - last_report[0] >= REPORT_INTERVAL_S:
            write_report(args.out, run_records(store), args.raw_dir)
            last_report[0] = time.monotonic()

    folds_run = range(args.folds if args.fold_limit is None else min(args.fold_limit, args.folds))
    for name in args.datasets:
        t0 = time.perf_counter()
        ds = load_graph_dataset(name, args.data_dir)
        splits = make_splits(ds.y.numpy(), args.folds, args.seed)
        data_info = {**ds.info, "features": ds.feature_desc}
        tasks = []
        for k in folds_run:
            for model in args.models:
                for hidden in args.hidden:
                    for layers in args.layers:
                        key = _key(name, model, k, hidden, layers)
                        if not store.done(key):
                            tasks.append((model, splits[k], hidden, layers, args.seed + k))
        _STATE.update(dataset=ds, cfg=cfg, threads=args.threads, batcher=GraphBatcher(ds.graphs))
        bar = tqdm(total=len(tasks), desc=name, unit="run", dynamic_ncols=True)
        if args.workers > 1 and len(tasks) > 1:
            with mp.get_context("fork").Pool(args.workers) as pool:
                for (model, k, hidden, layers), rec in pool.imap_unordered(_run_task, tasks):
                    _save(store, args, name, model, k, hidden, layers, rec, data_info, cfg, bar)
                    inv["wall_s"][name] = time.perf_counter() - t0  # kept if interrupted
                    save_inv()
                    maybe_report()
        else:
            for task in tasks:
                (model, k, hidden, layers), rec = _run_task(task)
                _save(store, args, name, model, k, hidden, layers, rec, data_info, cfg, bar)
                inv["wall_s"][name] = time.perf_counter() - t0
                save_inv()
                maybe_report()
        bar.close()
        inv["wall_s"][name] = time.perf_counter() - t0
        save_inv()
        _STATE.clear()
        write_report(args.out, run_records(store), args.raw_dir)
    inv["finished"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
    save_inv()
    write_report(args.out, run_records(store), args.raw_dir)
    print(f"wrote {args.out}")
    return 0


def _command_line() -> str:
    """How this process was started, as a copy-pasteable command."""
    if sys.argv[1:3] == ["reproduce", "graphs"]:
        return "gfbgcn reproduce graphs " + shlex.join(sys.argv[3:])
    if sys.argv and sys.argv[0].endswith("cli.py"):
        return "python -m gfbgcn.graphcls.cli " + shlex.join(sys.argv[1:])
    return shlex.join(sys.argv)


def run_records(store: RunStore) -> list[dict[str, Any]]:
    """The run records in ``store`` (``invocations.json`` lives beside them and is skipped)."""
    return [r for r in store.records() if isinstance(r, dict) and "key" in r]


def _key(dataset: str, model: str, fold: int, hidden: int, layers: int) -> dict[str, Any]:
    return {"dataset": dataset, "model": model, "fold": fold, "hidden": hidden, "layers": layers}


def _save(
    store: RunStore,
    args: argparse.Namespace,
    dataset: str,
    model: str,
    fold: int,
    hidden: int,
    layers: int,
    rec: dict[str, Any],
    data_info: dict[str, Any],
    cfg: TrainConfig,
    bar: tqdm,
) -> None:
    key = _key(dataset, model, fold, hidden, layers)
    store.save(
        key,
        {
            **rec,
            "num_folds": args.folds,
            "seed": args.seed,
            "train_config": asdict(cfg),
            "data": data_info,
        },
    )
    bar.set_postfix(model=model, fold=fold, h=hidden, l=layers, acc=f"{rec['test_acc']:.3f}")
    bar.update(1)


def main(argv: list[str] | None = None) -> int:
    """Stand-alone entry point (``python -m gfbgcn.graphcls.cli``)."""
    parser = argparse.ArgumentParser(description=__doc__)
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())

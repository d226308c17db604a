"""``gfbgcn reproduce entity``: R-GCN vs GFB-R-GCN on AIFB, MUTAG, BGS and AM.

Runs the grid of :mod:`gfbgcn.entity.experiment` (validation-based choices, then ``--runs``
test runs per data set and model), resuming from the per-run JSON files in ``--raw-dir``, and
writes the markdown table ``--out`` atomically (after every data set, so partial progress is
visible).  Data sets that cannot be loaded (BGS/AM offline) get a "not run" row.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import Any

import torch
from tqdm import tqdm

from gfbgcn.entity.data import DATASETS, EntityDataUnavailable, load_entities
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
from gfbgcn.io import atomic_write_json, atomic_write_text
from gfbgcn.nn.genvec import SUMMARIZERS
from gfbgcn.runinfo import machine_info, package_versions
from gfbgcn.train.store import RunStore


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``gfbgcn reproduce entity``."""
    parser.add_argument("--data-dir", default=None,
                        help="data root holding entities/<name>/raw (default: $GFBGCN_DATA)")
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=DATASETS,
                        metavar="NAME", help=f"data sets ({' '.join(DATASETS)})")
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=MODELS,
                        metavar="MODEL", help=f"models ({' '.join(MODELS)})")
    parser.add_argument("--runs", type=int, default=10, help="test runs (seeds 0..runs-1)")
    parser.add_argument("--summarize", default="mean", choices=SUMMARIZERS,
                        help="GenVec summarizer of GFB-R-GCN (paper: mean)")
    parser.add_argument("--select-runs", type=int, default=3,
                        help="runs per candidate config on the 80/20 validation split; "
                        "0 skips selection and uses the R-GCN paper's settings")
    parser.add_argument("--lambda-init", type=float, nargs="+", default=list(LAMBDA_INIT_GRID),
                        metavar="L", help="initial lambda values GFB-R-GCN's selection compares")
    parser.add_argument("--epochs", type=int, default=50, help="training epochs (paper: 50)")
    parser.add_argument("--threads", type=int, default=1,
                        help="torch CPU threads (1 was fastest on the shared 2-core machine)")
    parser.add_argument("--offline", action="store_true",
                        help="never try to download a missing data set")
    parser.add_argument("--out", default="docs/results/entity.md", help="markdown report")
    parser.add_argument("--raw-dir", default="docs/results/raw/entity",
                        help="per-run JSON records (resumable)")


def _command(args: argparse.Namespace) -> str:
    parts = ["gfbgcn", "reproduce", "entity"]
    if args.data_dir:
        parts += ["--data-dir", str(args.data_dir)]
    parts += ["--datasets", *args.datasets, "--models", *args.models, "--runs", str(args.runs),
              "--summarize", args.summarize, "--select-runs", str(args.select_runs),
              "--lambda-init", *(f"{v:g}" for v in args.lambda_init),
              "--epochs", str(args.epochs), "--threads", str(args.threads)]
    if args.offline:
        parts.append("--offline")
    parts += ["--out", str(args.out), "--raw-dir", str(args.raw_dir)]
    return shlex.join(parts)


def run(args: argparse.Namespace) -> int:
    """Run the grid and write the report; returns 0, or 1 when no data set could be run."""
    threads = torch.get_num_threads()
    torch.set_num_threads(max(1, args.threads))
    try:
        return _run(args)
    finally:
        torch.set_num_threads(threads)


def _run(args: argparse.Namespace) -> int:
    store = RunStore(args.raw_dir)
    overrides: dict[str, Any] = {"epochs": args.epochs, "summarize": args.summarize}
    lambda_inits = tuple(args.lambda_init)
    per_model = {
        m: (len(candidates("aifb", m, lambda_inits, **overrides)) * args.select_runs) + args.runs
        for m in args.models
    }
    total = len(args.datasets) * sum(per_model.values())
    outcomes: list[DatasetOutcome] = []
    provenance = {"versions": package_versions(), "machine": machine_info()}
    bar = tqdm(total=total, desc="entity", unit="run", dynamic_ncols=True)

    def tick(label: str) -> None:
        bar.set_postfix_str(label, refresh=False)
        bar.update(1)

    def write() -> None:
        text = render(outcomes, list(args.models), _command(args), provenance, str(args.raw_dir))
        atomic_write_text(args.out, text)

    try:
        for name in args.datasets:
            outcome = DatasetOutcome(name)
            outcomes.append(outcome)
            try:
                data = load_entities(name, args.data_dir, allow_download=not args.offline)
            except EntityDataUnavailable as err:
                outcome.unavailable = str(err)
                tqdm.write(f"{name}: not run: {err}", file=sys.stderr)
                bar.update(sum(per_model.values()))
                write()
                continue
            counts = torch.bincount(data.test_y, minlength=data.num_classes)
            train_counts = torch.bincount(data.train_y, minlength=data.num_classes)
            # majority class of the *training* labels, scored on test
            outcome.majority_acc = 100.0 * float(
                counts[int(train_counts.argmax())] / data.test_y.numel()
            )
            outcome.stats = {
                "num_nodes": data.num_nodes,
                "num_edges": int(data.edge_index.size(1)),
                "num_relations": data.num_relations,
                "num_classes": data.num_classes,
                "train": int(data.train_idx.numel()),
                "test": int(data.test_idx.numel()),
            }
            if "khop" in data.info:
                outcome.stats["note"] = (
                    f"{data.info['khop']}-hop subgraph of the labelled nodes "
                    f"(of {data.info['original_num_nodes']:,} nodes)"
                )
            for model in args.models:
                if args.select_runs > 0:
                    chosen, selection = select(
                        data, candidates(name, model, lambda_inits, **overrides),
                        args.select_runs, store, tick,
                    )
                else:
                    chosen, selection = base_config(name, model, **overrides), []
                records = test_runs(data, chosen, args.runs, store, tick)
                outcome.models[model] = {
                    "tag": chosen.tag,
                    "config": chosen.to_dict(),
                    "selection": selection,
                    "test": summarize_test(records),
                }
                write()
            write()
    finally:
        bar.close()
    summary_path = Path(args.raw_dir) / "summary.json"
    atomic_write_json(summary_path, {
        "command": _command(args),
        "provenance": provenance,
        "datasets": [
            {"name": o.name, "unavailable": o.unavailable, "stats": o.stats,
             "majority_acc": o.majority_acc, "models": o.models}
            for o in outcomes
        ],
    })
    write()
    print(f"wrote {args.out} and {summary_path}")
    return 0 if any(o.unavailable is None for o in outcomes) else 1

"""A fold's graph-classification runs one by one against batched -> docs/benchmarks.md.

For each model, the configurations (hidden x layers) of one fold of a TU data set are trained
twice from the fold's seed, as ``gfbgcn reproduce graphs`` trains them: one by one
(:func:`~gfbgcn.graph_classification.train.train_one`, ``--batch-runs 1``) and as batched models
of at most ``--batch-runs`` runs (:func:`~gfbgcn.graph_classification.batched.train_batch`).
The section gives the wall time of each way (the sum over the runs, in one process), the
speed-up, and how far the two ways' records are apart: they train the same runs, the same sums
grouped otherwise, so in float32 their rounding differences grow over the epochs and a run may
stop at another epoch (the float64 tests hold the two ways to 1e-10 over 15 epochs).

    python benchmarks/batched_runs.py --datasets MUTAG PROTEINS --threads 1
    python benchmarks/batched_runs.py --datasets REDDIT-BINARY --device cuda
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

import torch

from _report import command_line, machine_line, update_section
from gfbgcn.core.device import device_name, resolve_device
from gfbgcn.graph_classification.batched import train_batch
from gfbgcn.graph_classification.batching import GraphBatcher
from gfbgcn.graph_classification.data import load_graph_dataset
from gfbgcn.graph_classification.model import MODELS
from gfbgcn.graph_classification.train import GraphTrainConfig, make_splits, train_one
from gfbgcn.reproduce.graphs.experiment import HIDDEN_GRID, LAYERS_GRID


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def compare(dataset: str, model: str, shapes: list[tuple[int, int]], cfg: GraphTrainConfig,
            batch_runs: int, fold: int, device: torch.device) -> dict[str, Any]:
    """Wall time of ``shapes`` on fold ``fold`` one by one and batched, and their agreement."""
    ds = load_graph_dataset(dataset)
    split = make_splits(ds.y.numpy(), 10, 0)[fold]
    batcher = GraphBatcher(ds.graphs).to(device)
    args = (ds.graphs, split, ds.num_features, ds.num_classes)
    _sync(device)
    start = time.perf_counter()
    alone = [train_one(model, *args, h, n, cfg, fold, batcher=batcher, device=device)
             for h, n in shapes]
    _sync(device)
    one_s = time.perf_counter() - start
    together = []
    for i in range(0, len(shapes), batch_runs):
        together += [b.record for b in train_batch(model, *args, shapes[i:i + batch_runs], cfg,
                                                   fold, batcher=batcher, device=device)]
    _sync(device)
    batched_s = time.perf_counter() - start - one_s
    same_epochs = sum(a["epochs_run"] == b["epochs_run"] for a, b in zip(alone, together))
    return {"dataset": dataset, "model": model, "runs": len(shapes), "one_s": one_s,
            "batched_s": batched_s, "same_epochs": same_epochs,
            "dval": max(abs(a["val_loss"] - b["val_loss"]) for a, b in zip(alone, together)),
            "dtest": max(abs(a["test_acc"] - b["test_acc"]) for a, b in zip(alone, together)),
            "epochs": sum(a["epochs_run"] for a in alone)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--datasets", nargs="+", default=["MUTAG"])
    p.add_argument("--models", nargs="+", default=list(MODELS), choices=MODELS)
    p.add_argument("--hiddens", nargs="+", type=int, default=list(HIDDEN_GRID))
    p.add_argument("--layers", nargs="+", type=int, default=list(LAYERS_GRID))
    p.add_argument("--batch-runs", type=int, default=20)
    p.add_argument("--fold", type=int, default=0, help="the fold (its seed is the fold's)")
    p.add_argument("--epochs", type=int, default=100)
    p.add_argument("--patience", type=int, default=20)
    p.add_argument("--device", default="cpu")
    p.add_argument("--threads", type=int, default=None)
    p.add_argument("--no-write", action="store_true", help="print only")
    args = p.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    device = resolve_device(args.device)
    cfg = GraphTrainConfig(epochs=args.epochs, patience=args.patience)
    shapes = [(h, n) for h in args.hiddens for n in args.layers]
    rows = []
    for dataset in args.datasets:
        for model in args.models:
            rows.append(compare(dataset, model, shapes, cfg, args.batch_runs, args.fold, device))
            print(rows[-1], flush=True)
    name = device_name(device)
    body = "\n".join([
        f"## A fold's graph-classification runs, one by one and batched ({name})", "",
        f"Command: `{command_line()}`  ",
        f"Machine: {machine_line(torch.get_num_threads())}; device: {name}", "",
        f"Fold {args.fold} (seed {args.fold}) of each data set, the {len(shapes)} "
        f"configurations hidden {args.hiddens} × layers {args.layers} of each model, at most "
        f"{args.epochs} epochs, patience {args.patience}, 64 graphs a step, float32: trained "
        f"one by one (`train_one`, `--batch-runs 1`) and in batched models of at most "
        f"{args.batch_runs} runs (`train_batch`, `--batch-runs {args.batch_runs}`), one after "
        "the other in one process. Seconds: all the runs' wall time. Epochs: the runs' "
        "epochs one by one, summed. Agreement: runs whose stopping epoch is the same both ways, "
        "and the largest difference of a run's validation loss and test accuracy (float32 "
        "rounding grows over the epochs; in float64 the tests hold the two ways to 1e-10).",
        "",
        "| data set | model | runs | epochs | one by one (s) | batched (s) | speed-up | "
        "same stopping epoch | max Δ val loss | max Δ test acc |",
        "|---|---|---|---|---|---|---|---|---|---|",
        *[f"| {r['dataset']} | {r['model']} | {r['runs']} | {r['epochs']} | {r['one_s']:.1f} | "
          f"{r['batched_s']:.1f} | {r['one_s'] / r['batched_s']:.2f}× | "
          f"{r['same_epochs']}/{r['runs']} | {r['dval']:.1e} | {r['dtest']:.3f} |"
          for r in rows],
    ])
    print(body)
    if not args.no_write:
        update_section(f"batched-runs-{device.type}", body)
    return 0


if __name__ == "__main__":
    sys.exit(main())

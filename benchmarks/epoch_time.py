"""Training epoch time against the cost of one layer-1 product ``Â @ W1`` on the same device.

The target on the CPU: an epoch (forward, backward, validation, optimiser step) costs at most 3x
a single ``Â @ W1`` with the 200-column ``W1``.  Each dataset runs in a fresh subprocess, so the
peak memory reported is that dataset's training peak.  ``--device cuda`` times the same on a
GPU beside the paper's GTX1080 seconds per epoch; ``--whole-run`` adds one full run of the
paper's protocol per model (at most 200 epochs, early stopping) and the uncached graph build of
the data set, to compare the two.  Writes one section of docs/benchmarks.md, named after the
device unless ``--section`` says otherwise.

    python benchmarks/epoch_time.py [--datasets r8 r52 ohsumed 20ng] [--models gcn gfb-max ...]
        [--device cpu|cuda|cuda:N] [--whole-run] [--threads N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from _report import REPORT, command_line, machine_line, update_section

DEFAULT_MODELS = ["gcn", "gfb-max", "gfb-mean", "gfb-diag", "gfb-topk"]


def measure(name: str, epochs: int, models: list[str], device_spec: str,
            whole_run: bool = False) -> dict[str, Any]:
    """The child's work (one data set, in its own process): ``Â @ W1`` and epoch times."""
    import resource

    import torch

    from gfbgcn.core.device import device_name, resolve_device, synchronize
    from gfbgcn.nn.sparse import to_device
    from gfbgcn.text.corpus.benchmarks import load_benchmark
    from gfbgcn.text.graph.adjacency import normalized_adjacency
    from gfbgcn.text.graph.text_graph import build_text_graph
    from gfbgcn.text.train.config import TrainConfig
    from gfbgcn.text.train.run import train_text

    device = resolve_device(device_spec)
    graph = build_text_graph(load_benchmark(name), cache=not whole_run)
    data = graph.to_data()
    adj = to_device(normalized_adjacency(data.edge_index, data.edge_weight, data.num_nodes),
                    device)
    w1 = torch.randn(graph.num_nodes, 200, device=device)
    times = []
    for _ in range(7):
        synchronize(device)
        start = time.perf_counter()
        adj @ w1
        synchronize(device)
        times.append(time.perf_counter() - start)
    out: dict[str, Any] = {"spmm": statistics.median(times[1:]), "nnz": adj._nnz(),
                           "device": device_name(device), "models": {}, "whole_run": {},
                           "build_seconds": graph.build_seconds if whole_run else None}
    for model in models:
        cfg = TrainConfig(model=model, epochs=epochs, patience=10**6)
        out["models"][model] = train_text(graph, cfg, progress=False, adj=adj,
                                          device=device).seconds_per_epoch
        if whole_run:  # the paper's protocol: at most 200 epochs, patience 10
            result = train_text(graph, TrainConfig(model=model), progress=False, adj=adj,
                                device=device)
            out["whole_run"][model] = {"seconds": result.train_seconds,
                                       "epochs": result.epochs_run}
    out["peak_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    out["gpu_peak_mib"] = (torch.cuda.max_memory_allocated(device) / 2**20
                           if device.type == "cuda" else None)
    out["threads"] = torch.get_num_threads()
    return out


def _child(argv: list[str]) -> int:
    """``--child OPTIONS_JSON``: measure one data set, print the result as the last line."""
    options = json.loads(argv[0])
    threads = options.pop("threads")
    if threads:
        import torch

        torch.set_num_threads(threads)
    print(json.dumps(measure(**options)))
    return 0


def _paper_seconds() -> dict[str, dict[str, float]]:
    from gfbgcn.reproduce.paper import paper_table

    return paper_table("text")["seconds_per_epoch_gpu"]


def _rows(name: str, res: dict[str, Any], models: list[str], paper: dict, whole_run: bool
          ) -> list[str]:
    rows = []
    for model in models:
        seconds = res["models"][model]
        ref = paper.get(model, {}).get(name)
        cells = [name, model, f"{res['nnz']:,}", f"{res['spmm']:.4f}", f"{seconds:.4f}",
                 f"{seconds / res['spmm']:.1f}×", f"{ref:g}" if ref else "–"]
        if whole_run:
            run = res["whole_run"][model]
            cells += [f"{run['seconds']:.1f} ({run['epochs']} epochs)",
                      f"{res['build_seconds']:.1f}"]
        memory = f"{res['peak_mib']:,.0f}"
        if res["gpu_peak_mib"] is not None:
            memory += f" / {res['gpu_peak_mib']:,.0f}"
        rows.append("| " + " | ".join([*cells, memory]) + " |")
    return rows


def _body(args: argparse.Namespace, rows: list[str], device: str) -> str:
    gpu = device.startswith("cuda")
    header = ["dataset", "model", "nnz(Â)", "Â @ W1 (s)", "s/epoch", "× Â @ W1",
              "paper s/epoch (GTX1080)"]
    if args.whole_run:
        header += ["whole run (s)", "graph build (s, uncached)"]
    header.append("peak RSS / GPU MiB" if gpu else "peak RSS MiB")
    text = [
        f"## Training epoch time on {device} ({', '.join(args.datasets)})",
        "",
        f"Command: `{command_line()}`  ",
        f"Machine: {machine_line(args.threads)}; device: {device}",
        "",
        "`Â @ W1`: median seconds of one product of the normalised adjacency with a 200-column "
        "matrix on the device. s/epoch: median seconds of a training epoch over "
        f"{args.epochs} epochs (forward, backward, validation loss, Adam step; one host "
        "transfer per epoch) and its ratio to `Â @ W1` (CPU target ≤ 3×). Paper: seconds per "
        "epoch on a GTX1080 GPU (the paper's speed table). Peak RSS: the process's maximum over "
        "all models of that dataset" + ("; GPU: the largest memory torch allocated on it." if gpu
                                        else "."),
    ]
    if args.whole_run:
        text[-1] += (" Whole run: one training run of the paper's protocol (at most 200 epochs, "
                     "early stopping after 10 without a lower validation loss): seconds of its "
                     "training loop; graph build: `build_text_graph` of the data set with the "
                     "cache bypassed, on the CPU, in the same process.")
    text += ["", "| " + " | ".join(header) + " |", "|" + "---|" * len(header), *rows]
    return "\n".join(text)


def main() -> int:
    if sys.argv[1:2] == ["--child"]:
        return _child(sys.argv[2:])
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", nargs="+", default=["r8", "r52", "ohsumed", "20ng"])
    parser.add_argument("--models", nargs="+", default=DEFAULT_MODELS)
    parser.add_argument("--epochs", type=int, default=8, help="epochs timed per model")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--device", default="cpu", help="cpu, cuda, cuda:N or auto (cpu)")
    parser.add_argument("--whole-run", action="store_true",
                        help="also time one full run of the paper's protocol per model and the "
                        "uncached graph build")
    parser.add_argument("--report", type=Path, default=REPORT, help="the markdown file to "
                        "update (docs/benchmarks.md)")
    parser.add_argument("--section", default=None,
                        help="report section to (re)write (default: epoch-time on the CPU, "
                        "epoch-time-gpu on CUDA)")
    args = parser.parse_args()
    paper = _paper_seconds()
    rows, device = [], None
    for name in args.datasets:
        options = {"name": name, "epochs": args.epochs, "models": args.models,
                   "device_spec": args.device, "whole_run": args.whole_run,
                   "threads": args.threads}
        proc = subprocess.run([sys.executable, __file__, "--child", json.dumps(options)],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            print(proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else
                  f"{name}: child failed", file=sys.stderr)
            return 2
        res = json.loads(proc.stdout.strip().splitlines()[-1])
        device = res["device"]
        rows += _rows(name, res, args.models, paper, args.whole_run)
        print("\n".join(rows[-len(args.models):]), flush=True)
    section = args.section or ("epoch-time-gpu" if device.startswith("cuda") else "epoch-time")
    update_section(section, _body(args, rows, device), args.report)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Training epoch time against the cost of one layer-1 product ``Â @ W1`` (same process).

The issue's target: an epoch (forward, backward, validation, optimiser step) costs at most 3x a
single ``Â @ W1`` with the 200-column ``W1``.  Each dataset runs in a fresh subprocess, so the
peak RSS reported is that dataset's training peak.  Writes the "epoch-time" section of
docs/benchmarks.md.

    python benchmarks/epoch_time.py [--datasets r8 r52 ohsumed 20ng] [--models gcn gfb-max ...]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

from _report import command_line, machine_line, update_section

CHILD = r"""
import json, resource, statistics, sys, time, torch
from gfbgcn.text.data import load_benchmark
from gfbgcn.text.graph import build_text_graph, normalized_adjacency
from gfbgcn.text.train import TrainConfig, train_text
name, epochs, models = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(",")
if len(sys.argv) > 4:
    torch.set_num_threads(int(sys.argv[4]))
graph = build_text_graph(load_benchmark(name))
data = graph.to_data()
adj = normalized_adjacency(data.edge_index, data.edge_weight, data.num_nodes)
w1 = torch.randn(graph.num_nodes, 200)
times = []
for _ in range(7):
    t = time.perf_counter(); adj @ w1; times.append(time.perf_counter() - t)
spmm = statistics.median(times[1:])
out = {"spmm": spmm, "nnz": adj._nnz(), "models": {}}
for model in models:
    cfg = TrainConfig(model=model, epochs=epochs, patience=10**6)
    r = train_text(graph, cfg, progress=False, adj=adj)
    out["models"][model] = r.seconds_per_epoch
out["peak_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
out["threads"] = torch.get_num_threads()
print(json.dumps(out))
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--datasets", nargs="+", default=["r8", "r52", "ohsumed", "20ng"])
    parser.add_argument("--models", nargs="+",
                        default=["gcn", "gfb-max", "gfb-mean", "gfb-diag", "gfb-topk"])
    parser.add_argument("--epochs", type=int, default=8, help="epochs timed per model")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--section", default="epoch-time",
                        help="report section to (re)write, e.g. one per dataset group")
    args = parser.parse_args()
    rows = []
    for name in args.datasets:
        cmd = [sys.executable, "-c", CHILD, name, str(args.epochs), ",".join(args.models)]
        if args.threads:
            cmd.append(str(args.threads))
        res = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True)
                         .stdout.strip().splitlines()[-1])
        cells = [f"{res['models'][m]:.3f} ({res['models'][m] / res['spmm']:.1f}×)"
                 for m in args.models]
        rows.append(f"| {name} | {res['nnz']:,} | {res['spmm']:.3f} | " + " | ".join(cells)
                    + f" | {res['peak_mib']:,.0f} |")
        print(rows[-1], flush=True)
    body = "\n".join([
        f"## Training epoch time ({', '.join(args.datasets)})",
        "",
        f"Command: `{command_line()}`  ",
        f"Machine: {machine_line(args.threads)}",
        "",
        "`Â @ W1`: median seconds of one product of the normalised adjacency with a 200-column "
        f"matrix. Model cells: median seconds of a training epoch over {args.epochs} epochs "
        "(forward, backward, validation loss, Adam step) and its ratio to `Â @ W1` (target ≤ 3×). "
        "Peak RSS: the training process's maximum over all models of that dataset.",
        "",
        "| dataset | nnz(Â) | Â @ W1 (s) | " + " | ".join(args.models) + " | peak RSS MiB |",
        "|---|---|---|" + "---|" * len(args.models) + "---|",
        *rows,
    ])
    update_section(args.section, body)
    return 0


if __name__ == "__main__":
    sys.exit(main())

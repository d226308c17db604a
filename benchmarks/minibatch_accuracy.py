"""Mini-batch against full-batch test accuracy, per data set, model and seed.

Mini-batch runs are ``gfbgcn train --batch-size N --out docs/results/raw/minibatch/<name>``
directories (``--run`` trains the missing ones first); full-batch runs are the records of
``gfbgcn reproduce text`` under ``docs/results/raw/text/`` (same graph, same protocol, same
seeds).  Writes the "minibatch-accuracy" section of docs/benchmarks.md.

    python benchmarks/minibatch_accuracy.py --dataset 20ng --model gcn --batch-size 512 \\
        --seeds 0 1 2 [--run]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

from _report import REPORT, command_line, machine_line, update_section

RESULTS = REPORT.parent / "results" / "raw"


def mean_std(values: list[float]) -> str:
    if not values:
        return "–"
    std = statistics.stdev(values) if len(values) > 1 else 0.0
    return f"{statistics.mean(values):.4f} ± {std:.4f} ({len(values)})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dataset", default="20ng")
    parser.add_argument("--model", default="gcn")
    parser.add_argument("--batch-size", type=int, default=512)
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--run", action="store_true", help="train missing mini-batch runs")
    args = parser.parse_args()
    rows, mini_acc, full_acc, mini_all = [], [], [], []
    for seed in args.seeds:
        run = RESULTS / "minibatch" / f"{args.dataset}-{args.model}-bs{args.batch_size}-seed{seed}"
        if args.run and not (run / "metrics.json").is_file():
            subprocess.run([sys.executable, "-m", "gfbgcn", "train", "--dataset", args.dataset,
                            "--model", args.model, "--batch-size", str(args.batch_size),
                            "--seed", str(seed), "--threads", "1", "--quiet", "--out", str(run)],
                           check=True)
        full_path = (RESULTS / "text" /
                     f"dataset={args.dataset}__model={args.model}__variant=default__seed={seed}.json")
        if not (run / "metrics.json").is_file():
            continue
        mini = json.loads((run / "metrics.json").read_text())
        mini_all.append(mini["test"]["accuracy"])
        if not full_path.is_file():  # no full-batch record of this seed: mini-batch only
            rows.append(f"| {seed} | – | – | – | {mini['test']['accuracy']:.4f} | "
                        f"{mini['best_epoch']} | {mini['seconds_per_epoch']:.1f} | "
                        f"{mini['peak_rss_mib']:,.0f} |")
            continue
        full = json.loads(full_path.read_text())
        mini_acc.append(mini["test"]["accuracy"])
        full_acc.append(full["test"]["accuracy"])
        rows.append(f"| {seed} | {full['test']['accuracy']:.4f} | {full['best_epoch']} | "
                    f"{full['seconds_per_epoch']:.1f} | {mini['test']['accuracy']:.4f} | "
                    f"{mini['best_epoch']} | {mini['seconds_per_epoch']:.1f} | "
                    f"{mini['peak_rss_mib']:,.0f} |")
    diff = [m - f for m, f in zip(mini_acc, full_acc)]
    body = "\n".join([
        f"## Mini-batch against full-batch accuracy ({args.dataset}, {args.model})",
        "",
        f"Command: `{command_line()}`  ",
        f"Machine (mini-batch runs): {machine_line(1)}",
        "",
        f"Mini-batch: `gfbgcn train --dataset {args.dataset} --model {args.model} --batch-size "
        f"{args.batch_size} --seed S --threads 1 --out "
        f"docs/results/raw/minibatch/{args.dataset}-{args.model}-bs{args.batch_size}-seedS` "
        "(fanout 32). Full batch: the records of `gfbgcn reproduce text` in "
        "`docs/results/raw/text/` for the same seeds (the same graph: the sharded build is "
        "identical). Epoch seconds were measured on a shared machine at different loads (the "
        "mini-batch runs beside other jobs at load average 4-6 on 2 cores): do not read them "
        "as a speed comparison.",
        "",
        "| seed | full-batch accuracy | best epoch | s/epoch | mini-batch accuracy | best epoch | "
        "s/epoch | mini-batch peak RSS MiB |",
        "|---|---|---|---|---|---|---|---|",
        *rows,
        "",
        f"Seeds with both runs: full batch {mean_std(full_acc)}; mini-batch "
        f"{mean_std(mini_acc)}; mini-batch minus full batch per seed {mean_std(diff)}. "
        f"All mini-batch seeds: {mean_std(mini_all)}.",
    ])
    update_section("minibatch-accuracy", body)
    print(body)
    return 0


if __name__ == "__main__":
    sys.exit(main())

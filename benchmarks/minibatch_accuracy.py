"""Mini-batch against full-batch test accuracy, per data set, model and seed.

Mini-batch runs are ``gfbgcn train --batch-size N --out docs/results/raw/minibatch/<name>``
directories (``--run`` trains the missing ones first); full-batch runs are the records of
``gfbgcn reproduce text`` under ``docs/results/raw/text/`` (same graph, same protocol, same
seeds; ``--full-dir`` adds directories of such records, read only).  ``--full-run`` trains the
missing full-batch seeds too (``gfbgcn train`` without ``--batch-size``, into
``docs/results/raw/fullbatch/``).  Writes one section of docs/benchmarks.md (``--section``,
default "minibatch-accuracy").

    python benchmarks/minibatch_accuracy.py --dataset 20ng --model gcn --batch-size 512 \\
        --seeds 0 1 2 [--run] [--optimizer sparse-adam] [--section NAME]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

from _report import REPORT, command_line, machine_line, update_section

RESULTS = REPORT.parent / "results" / "raw"


def mean_std(values: list[float]) -> str:
    if not values:
        return "–"
    std = statistics.stdev(values) if len(values) > 1 else 0.0
    return f"{statistics.mean(values):.4f} ± {std:.4f} ({len(values)})"


def _train(args: argparse.Namespace, seed: int, out: Path, batch: int, optimizer: str) -> None:
    cmd = [sys.executable, "-m", "gfbgcn", "train", "--dataset", args.dataset, "--model",
           args.model, "--seed", str(seed), "--threads", str(args.threads), "--quiet",
           "--device", "cpu", "--out", str(out)]
    if batch:
        cmd += ["--batch-size", str(batch), "--fanout", str(args.fanout), "--optimizer",
                optimizer]
        if args.row_budget:
            cmd += ["--row-budget", str(args.row_budget)]
    subprocess.run(cmd, check=True)


def _run_name(args: argparse.Namespace, seed: int) -> str:
    extra = "" if args.optimizer == "adam" else f"-{args.optimizer}"
    fan = "" if args.fanout == 32 else f"-fanout{args.fanout}"
    fan += f"-budget{args.row_budget}" if args.row_budget else ""
    return f"{args.dataset}-{args.model}-bs{args.batch_size}{fan}{extra}-seed{seed}"


def _full_record(args: argparse.Namespace, seed: int) -> dict | None:
    name = (f"dataset={args.dataset}__model={args.model}__variant={args.full_variant}"
            f"__seed={seed}.json")
    for folder in [RESULTS / "text", *args.full_dir]:
        if (Path(folder) / name).is_file():
            return json.loads((Path(folder) / name).read_text())
    if args.full_variant != "default":  # only reproduce text runs variants
        return None
    own = RESULTS / "fullbatch" / f"{args.dataset}-{args.model}-seed{seed}"
    if args.full_run and not (own / "metrics.json").is_file():
        _train(args, seed, own, 0, "adam")
    if (own / "metrics.json").is_file():
        return json.loads((own / "metrics.json").read_text())
    return None


def _row(seed: int, full: dict | None, mini: dict) -> str:
    left = (f"{full['test']['accuracy']:.4f} | {full['best_epoch']} | "
            f"{full['seconds_per_epoch']:.1f}" if full else "– | – | –")
    return (f"| {seed} | {left} | {mini['test']['accuracy']:.4f} | {mini['best_epoch']} | "
            f"{mini['seconds_per_epoch']:.1f} | {mini['peak_rss_mib']:,.0f} |")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dataset", default="20ng")
    parser.add_argument("--model", default="gcn")
    parser.add_argument("--batch-size", type=int, default=512)
    parser.add_argument("--fanout", type=int, default=32)
    parser.add_argument("--optimizer", default="adam", choices=["adam", "sparse-adam"])
    parser.add_argument("--row-budget", type=int, default=0, help="--row-budget of the "
                        "mini-batch runs (0: none)")
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--threads", type=int, default=1, help="torch threads of each run (1)")
    parser.add_argument("--run", action="store_true", help="train missing mini-batch runs")
    parser.add_argument("--full-run", action="store_true",
                        help="train missing full-batch runs (docs/results/raw/fullbatch/)")
    parser.add_argument("--full-dir", nargs="*", default=[], type=Path,
                        help="more directories with full-batch records (read only)")
    parser.add_argument("--full-variant", default="default",
                        help="the reproduce text variant whose records are the full-batch "
                             "runs (default: the paper's setting; e.g. patience50)")
    parser.add_argument("--section", default="minibatch-accuracy")
    parser.add_argument("--note", default="", help="a sentence on the conditions")
    return parser


def main() -> int:
    args = _parser().parse_args()
    rows, mini_acc, full_acc, mini_all = [], [], [], []
    for seed in args.seeds:
        run = RESULTS / "minibatch" / _run_name(args, seed)
        if args.run and not (run / "metrics.json").is_file():
            _train(args, seed, run, args.batch_size, args.optimizer)
        full = _full_record(args, seed)
        if not (run / "metrics.json").is_file():
            continue
        mini = json.loads((run / "metrics.json").read_text())
        mini_all.append(mini["test"]["accuracy"])
        rows.append(_row(seed, full, mini))
        if full is not None:
            mini_acc.append(mini["test"]["accuracy"])
            full_acc.append(full["test"]["accuracy"])
    diff = [m - f for m, f in zip(mini_acc, full_acc)]
    body = "\n".join([
        f"## Mini-batch against full-batch accuracy ({args.dataset}, {args.model}, batch "
        f"{args.batch_size}, {args.optimizer}"
        + (f", fanout {args.fanout}, row budget {args.row_budget}" if args.row_budget else "")
        + (f"; full batch `{args.full_variant}`" if args.full_variant != "default" else "")
        + ")",
        "",
        f"Command: `{command_line()}`  ",
        f"Machine (mini-batch runs): {machine_line(args.threads)}"
        + (f"; {args.note}" if args.note else ""),
        "",
        f"Mini-batch: `gfbgcn train --dataset {args.dataset} --model {args.model} --batch-size "
        f"{args.batch_size} --fanout {args.fanout} --optimizer {args.optimizer} "
        + (f"--row-budget {args.row_budget} " if args.row_budget else "") + "--seed S "
        f"--threads {args.threads} --out docs/results/raw/minibatch/{_run_name(args, 'S')}`. "
        "Full batch: the records of `gfbgcn reproduce text` (`docs/results/raw/text/` and the "
        "directories given) or of `gfbgcn train` without `--batch-size` for the same seeds (the "
        "same graph and protocol"
        + (f"; here its variant `{args.full_variant}`" if args.full_variant != "default" else "")
        + "). Epoch seconds come from runs at different times and loads "
        "on a shared machine: do not read them as a speed comparison (the epoch-time sections "
        "compare speed within one process).",
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
    update_section(args.section, body)
    print(body)
    return 0


if __name__ == "__main__":
    sys.exit(main())

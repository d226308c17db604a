"""Which graph settings suit a user's corpus file: the paper's model trained on four settings.

Per corpus (default: the five CSVs of ``text-extra``), graph setting and seed, one fresh
process runs

    gfbgcn train --dataset X.csv --model gfb-max --stop-words SW --min-freq M --window 20 \\
        --seed S --threads T --no-baseline --quiet --out RUNS/X/stop=SW_minfreq=M_seed=S

(GFB-MaxVec with exact GenVec, the paper's training protocol: no search, nothing stopped
early), for the settings of ``--auto``'s first stage: the paper's English stop words with
``min_freq`` 5, no stop words with ``min_freq`` 1 and 2, English stop words with ``min_freq``
1.  A run whose ``metrics.json`` exists is not run again.  The report gives validation and test
accuracy per corpus (mean ± sample std over the seeds) and, per setting, the mean over the
corpora; a setting is to be judged on validation accuracy only.

    python benchmarks/graph_defaults.py --seeds 0 1 2 --threads 1 \\
        --runs docs/results/raw/graph-defaults --report docs/results/graph-defaults.md
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

from _report import command_line, machine_line
from gfbgcn.core.io import atomic_write_text
from gfbgcn.core.paths import data_root

CORPORA = ("customer-reviews", "mpqa-opinion", "subjectivity", "slo-opinion",
           "election-tweets-2016")
#: (stop words, min_freq): the paper's setting first, as in ``--auto``'s stage 1.
SETTINGS = (("english", 5), ("none", 1), ("none", 2), ("english", 1))


def run_dir(runs: Path, corpus: str, stop: str, min_freq: int, seed: int) -> Path:
    return runs / corpus / f"stop={stop}_minfreq={min_freq}_seed={seed}"


def run_one(runs: Path, corpus: str, stop: str, min_freq: int, seed: int, threads: int) -> None:
    """One training in a fresh process (skipped when its metrics exist)."""
    out = run_dir(runs, corpus, stop, min_freq, seed)
    if (out / "metrics.json").is_file():
        return
    csv_path = data_root(None) / "text-extra" / f"{corpus}.csv"
    cmd = [sys.executable, "-m", "gfbgcn", "train", "--dataset", str(csv_path),
           "--model", "gfb-max", "--stop-words", stop, "--min-freq", str(min_freq),
           "--window", "20", "--seed", str(seed), "--threads", str(threads), "--no-baseline",
           "--quiet", "--out", str(out)]
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if proc.returncode:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr[-400:]}")


def _cell(values: list[float]) -> str:
    mean = 100 * statistics.mean(values)
    std = 100 * statistics.stdev(values) if len(values) > 1 else 0.0
    return f"{mean:.2f} ± {std:.2f}"


def render(runs: Path, corpora: list[str], seeds: list[int], command: str, machine: str,
           notes: str = "") -> str:
    """The report from the runs under ``runs`` (``notes``: hand-written, appended)."""
    lines = ["# Graph settings for a user's corpus file", "",
             "Written by `benchmarks/graph_defaults.py` (its docstring gives the protocol) from "
             "the runs in `raw/graph-defaults/`. GFB-MaxVec (exact GenVec), window 20, the "
             "paper's training protocol, no baseline, no search; validation / test accuracy "
             "in %, mean ± sample std over the seeds (n).", "",
             f"Command: `{command}`  ", f"Machine: {machine}", "",
             "| setting | " + " | ".join(corpora) + " | mean val | mean test |",
             "|---|" + "---|" * (len(corpora) + 2)]
    for stop, min_freq in SETTINGS:
        cells, vals, tests = [], [], []
        for corpus in corpora:
            metrics = [json.loads((run_dir(runs, corpus, stop, min_freq, s)
                                   / "metrics.json").read_text()) for s in seeds
                       if (run_dir(runs, corpus, stop, min_freq, s) / "metrics.json").is_file()]
            if not metrics:
                cells.append("not run")
                continue
            val = [m["val"]["accuracy"] for m in metrics]
            test = [m["test"]["accuracy"] for m in metrics]
            vals.append(statistics.mean(val))
            tests.append(statistics.mean(test))
            cells.append(f"{_cell(val)} / {_cell(test)} (n={len(metrics)})")
        full = len(vals) == len(corpora)
        mean_val = f"{100 * statistics.mean(vals):.2f}" if full else "–"
        mean_test = f"{100 * statistics.mean(tests):.2f}" if full else "–"
        lines.append(f"| stop {stop}, min_freq {min_freq} | " + " | ".join(cells)
                     + f" | {mean_val} | {mean_test} |")
    if notes:
        lines += ["", notes.rstrip()]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--datasets", nargs="+", default=list(CORPORA))
    p.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--runs", type=Path, required=True)
    p.add_argument("--report", type=Path, required=True)
    p.add_argument("--report-only", action="store_true")
    args = p.parse_args(argv)
    if not args.report_only:
        for corpus in args.datasets:
            for stop, min_freq in SETTINGS:
                for seed in args.seeds:
                    run_one(args.runs, corpus, stop, min_freq, seed, args.threads)
    notes_path = args.report.with_name(args.report.stem + "_notes.md")
    notes = notes_path.read_text(encoding="utf-8") if notes_path.is_file() else ""
    atomic_write_text(args.report, render(args.runs, args.datasets, args.seeds, command_line(),
                                          machine_line(args.threads), notes))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

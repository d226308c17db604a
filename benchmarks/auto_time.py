"""Wall time of one ``gfbgcn train --auto`` search, as a user runs it -> docs/benchmarks.md.

Per corpus and seed, one fresh process runs
``gfbgcn train --dataset X --auto --seed S --quiet --threads T --out DIR`` (graphs built anew:
``--no-cache`` unless ``--cache``); reported are its wall seconds, user + system CPU seconds
and peak RSS (the operating system's accounting of the finished child, ``os.wait4``), the
search's own clock (``metrics.json``: ``auto.seconds``, the rest being start-up, reading and
writing), the trainings it ran, what it chose and its test accuracy, beside the time targets
of one search (60 s for the sentence corpora, 120 s for R8).  The machine is shared: the load
average is printed with each row.

    python benchmarks/auto_time.py --datasets customer-reviews mpqa-opinion subjectivity r8 \\
        --seeds 0 1 2 --threads 2
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _report import command_line, machine_line, update_section
from gfbgcn.core.paths import data_root

#: The time targets: seconds of one search on the 2-core machine, one process.
TARGETS = {"customer-reviews": 60, "mpqa-opinion": 60, "subjectivity": 60, "r8": 120}
EXTRA = ("customer-reviews", "mpqa-opinion", "subjectivity", "slo-opinion",
         "election-tweets-2016")


def dataset_arg(name: str) -> str:
    """A text-extra corpus's CSV path, or a benchmark's name as the CLI takes it."""
    return str(data_root(None) / "text-extra" / f"{name}.csv") if name in EXTRA else name


def run_one(dataset: str, seed: int, threads: int, cache: bool, device: str = "cpu") -> dict:
    """One search in a fresh process, and what it measured."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "run"
        cmd = [sys.executable, "-m", "gfbgcn", "train", "--dataset", dataset_arg(dataset),
               "--auto", "--seed", str(seed), "--quiet", "--threads", str(threads),
               "--out", str(out), "--device", device] + ([] if cache else ["--no-cache"])
        load = os.getloadavg()[0]
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        assert proc.stderr is not None
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        err = proc.stderr.read().decode(errors="replace")
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode:
            raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): {err[-400:]}")
        metrics = json.loads((out / "metrics.json").read_text())
        with (out / "auto.csv").open(newline="") as f:
            table = list(csv.DictReader(f))
    chosen = metrics["auto"]
    what = "linear baseline" if chosen["predictor"] == "linear" else \
        f"{chosen['model']}{' + linear' if chosen['predictor'] != 'graph' else ''}"
    return {"dataset": dataset, "seed": seed, "wall": wall,
            "cpu": usage.ru_utime + usage.ru_stime, "rss_mib": usage.ru_maxrss / 1024,
            "search": chosen["seconds"], "trained": chosen["trained"], "chosen": what,
            "baseline": sum(float(r["seconds"]) for r in table if r["predictor"] == "linear"),
            "graphs": sum(float(r["seconds"]) for r in table if r["predictor"] == "graph"),
            "stopped": sum(1 for r in table if r["predictor"] == "graph" and r["stopped_at"]),
            "test": metrics["test"]["accuracy"], "load": load}


def render(rows: list[dict], threads: int, cache: bool, note: str, device: str = "cpu") -> str:
    title = ("One `--auto` search: wall time against the targets" if device == "cpu"
             else f"One `--auto` search on {device}: wall time (the targets are the CPU's)")
    lines = [f"## {title}", "",
             f"Command: `{command_line()}`  ",
             f"Machine: {machine_line(threads)}" + (f"; {note}" if note else ""), "",
             "Each row: `gfbgcn train --dataset X --auto --seed S --quiet --threads "
             f"{threads} --out DIR --device {device}" + ("" if cache else " --no-cache")
             + "` in a fresh process "
             "(wall, user + system CPU seconds and peak RSS of the finished process; "
             "search: the search's own clock in `metrics.json`, the rest is start-up, reading "
             "and writing; baseline and graph candidates: the seconds of `auto.csv`, the "
             "latter summed over the trainings (graph builds included), with how many were "
             "stopped at a rung; load: the 1-minute load average when it started).", "",
             "| corpus | seed | wall s | CPU s | search s | baseline s | graph candidates s "
             "(stopped) | peak RSS MiB | trainings | chosen | test acc | load |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['dataset']} | {r['seed']} | {r['wall']:.1f} | {r['cpu']:.1f} | "
                     f"{r['search']:.1f} | {r['baseline']:.1f} | {r['graphs']:.1f} "
                     f"({r['stopped']}) | {r['rss_mib']:,.0f} | {r['trained']} | "
                     f"{r['chosen']} | {100 * r['test']:.2f} | {r['load']:.1f} |")
    lines += ["", "| corpus | median wall s | target s | verdict |", "|---|---|---|---|"]
    for ds in dict.fromkeys(r["dataset"] for r in rows):
        median = statistics.median(r["wall"] for r in rows if r["dataset"] == ds)
        # The targets are the 2-core CPU machine's; a GPU row is shown beside them.
        target = TARGETS.get(ds) if device == "cpu" else None
        verdict = "–" if target is None else ("met" if median <= target else "MISSED")
        lines.append(f"| {ds} | {median:.1f} | {target or '–'} | {verdict} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--datasets", nargs="+", default=list(TARGETS))
    p.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--cache", action="store_true", help="reuse cached graphs (default: build)")
    p.add_argument("--note", default="", help="appended to the machine line")
    p.add_argument("--device", default="cpu", help="passed to --device (section auto-wall-DEVICE)")
    p.add_argument("--no-write", action="store_true", help="print only")
    args = p.parse_args(argv)
    rows = []
    for ds in args.datasets:
        for seed in args.seeds:
            rows.append(run_one(ds, seed, args.threads, args.cache, args.device))
            print(json.dumps(rows[-1]), flush=True)
    body = render(rows, args.threads, args.cache, args.note, args.device)
    print(body)
    if not args.no_write:
        section = "auto-wall" if args.device == "cpu" else f"auto-wall-{args.device.split(':')[0]}"
        update_section(section, body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

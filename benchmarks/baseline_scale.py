"""Cost of the built-in linear baseline against corpus size, beside the graph build's.

The corpus of ``benchmarks/scale.py`` (the four benchmarks, then word-perturbed copies) at each
``--sizes`` N; its own train/test split, 10 % of the training documents drawn as validation.
Per size, one fresh process (peak RSS its own, under an address-space limit of ``--max-gib``)
fits :func:`gfbgcn.text.linear.baseline.fit_baseline` in the mode its size selects (hashed word
n-grams with SGD / complement naive Bayes above ``HASH_ABOVE`` training documents; the n-gram
vocabulary and the full grid below) and reports wall and CPU seconds, peak RSS, the chosen
classifier and its test accuracy.  The graph build's figures at the same sizes are in the
"scale" section of docs/benchmarks.md (``docs/results/raw/scale/rows.jsonl``).

Appends its rows to ``docs/results/raw/baseline-scale/rows.jsonl`` (with the commit and a note)
and writes the "baseline-scale" section of docs/benchmarks.md from all rows there.

    python benchmarks/baseline_scale.py --sizes 43020 86040 --max-gib 12
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from _report import command_line, machine_line, update_section
from scale import COMMON

FIT = COMMON + r"""
from gfbgcn.text.linear.baseline import fit_baseline
corpus = scale_corpus(int(sys.argv[1]))
y = corpus.label_ids()
train = np.flatnonzero(corpus.is_train)
test = np.flatnonzero(~corpus.is_train)
val = np.random.default_rng(0).choice(train, size=len(train) // 10, replace=False)
fit = np.setdiff1d(train, val)
cpu0, t = os.times(), time.perf_counter()
b = fit_baseline(corpus.texts, y, corpus.label_names, fit, val, test, seed=0)
seconds, cpu1 = time.perf_counter() - t, os.times()
print(json.dumps({"docs": len(y), "classes": len(corpus.label_names), "fit_s": seconds,
                  "fit_cpu_s": sum(cpu1[:4]) - sum(cpu0[:4]), "peak_mib": peaks()[0],
                  "worker_peak_mib": peaks()[1],
                  "classifier": b.model.description, "hashed": b.model.ngrams.hashed,
                  "features": b.model.ngrams.num_features,
                  "test_accuracy": b.test["accuracy"], "load": os.getloadavg()[0]}))
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[43020, 86040],
                        help="corpus sizes to measure (none: only rewrite the section)")
    parser.add_argument("--max-gib", type=float, default=12.0)
    parser.add_argument("--note", default="")
    args = parser.parse_args(argv)
    env = {**os.environ, "SCALE_MAX_GIB": str(args.max_gib)}
    root = Path(__file__).resolve().parent.parent
    rows_path = root / "docs/results/raw/baseline-scale/rows.jsonl"
    rows_path.parent.mkdir(parents=True, exist_ok=True)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, cwd=rows_path.parent).stdout.strip()
    rows = []
    for n in args.sizes:
        done = subprocess.run([sys.executable, "-c", FIT, str(n)], env=env, text=True,
                              capture_output=True)
        if done.returncode:
            print(done.stderr[-2000:], file=sys.stderr)
            rows.append({"docs": n, "failed": done.returncode})
            continue
        rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
        print(rows[-1], flush=True)
    with open(rows_path, "a", encoding="utf-8") as out:  # nothing when no size was run
        for r in rows:
            out.write(json.dumps({**r, "commit": commit, "note": args.note,
                                  "command": command_line()}) + "\n")
    rows = [json.loads(line) for line in rows_path.read_text(encoding="utf-8").splitlines()]
    lines = ["## Built-in linear baseline against corpus size", "",
             "`fit_baseline` on the corpus of `benchmarks/scale.py` (its train/test split, 10 % "
             "of the training documents as validation), one fresh process per size: the "
             "validation grid, the refit on the whole training split and the probabilities of "
             "every document. Compare with the graph build at the same size (scale section).",
             "", "Graph build columns: the range over the build rows of "
             "`docs/results/raw/scale/rows.jsonl` at the same size (CPU s of the main process "
             "and its workers; peak RSS of the main process).",
             "", "| documents | classes | mode | chosen | test acc | wall s | CPU s | "
             "peak RSS MiB (main / worker) | graph build CPU s | graph build peak MiB | load | "
             "commit | note |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    builds: dict[int, list[dict]] = {}
    scale_rows = rows_path.parent.parent / "scale" / "rows.jsonl"
    if scale_rows.is_file():
        for line in scale_rows.read_text(encoding="utf-8").splitlines():
            b = json.loads(line)
            if "build_cpu_s" in b:
                builds.setdefault(b["docs"], []).append(b)

    def span(values: list[float]) -> str:
        return "" if not values else (f"{min(values):.0f}" if len(values) == 1 else
                                      f"{min(values):.0f}-{max(values):.0f}")
    for r in rows:
        if "failed" in r:
            lines.append(f"| {r['docs']:,} | | failed (exit {r['failed']}) | | | | | | | | | "
                         f"{r.get('commit', '')} | {r.get('note', '')} |")
            continue
        mode = f"hashed 2^{r['hashed'].bit_length() - 1}" if r["hashed"] else \
            f"vocabulary ({r['features']:,} n-grams)"
        lines.append(f"| {r['docs']:,} | {r['classes']} | {mode} | {r['classifier']} | "
                     f"{100 * r['test_accuracy']:.2f} | {r['fit_s']:.1f} | "
                     f"{r['fit_cpu_s']:.1f} | {r['peak_mib']:.0f}"
                     + (f" / {r['worker_peak_mib']:.0f}" if r.get("worker_peak_mib") else "")
                     + " | "
                     f"{span([b['build_cpu_s'] for b in builds.get(r['docs'], [])])} | "
                     f"{span([b['build_main_mib'] for b in builds.get(r['docs'], [])])} | "
                     f"{r['load']:.1f} | "
                     f"{r.get('commit', '')} | {r.get('note', '')} |")
    commands = list(dict.fromkeys(r.get("command", "") for r in rows if r.get("command")))
    lines += ["", "Commands: " + "; ".join(f"`{c}`" for c in commands), "",
              f"Machine: {machine_line(1)}"]
    update_section("baseline-scale", "\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())

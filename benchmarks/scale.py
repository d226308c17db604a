"""Cost against corpus size: graph build, full-batch and mini-batch training epochs.

The corpus: the four benchmarks (R8, R52, Ohsumed, 20NG: 43,020 documents, labels prefixed by
the data set, their own train/test splits) in a fixed shuffled order, then copies of it; in
copy ``c >= 1`` 10 % of the whitespace-separated tokens of every document (chosen with seed
``c``) are replaced by ``<token>q<c>`` (letters and digits, which the ``textgcn`` cleaning keeps
inside one token), so every copy adds new words (the vocabulary grows with the corpus, as in a
real archive) while keeping the documents' length and class signal.  (Before 2026-11-23 the
variant was ``<token>~c``; the cleaning turns ``~`` into a space, so those copies added no
words, only the token ``c``.)
A size of N documents takes the first N of this stream.

Per size, up to three fresh processes (``--phases``; each peak RSS is that phase's own), each
under an address-space limit of ``--max-gib`` (so that a size too large for the machine fails
alone instead of pushing other work out of memory; a failed phase is reported as such):

1. build: ``build_text_graph`` with every core (``--workers`` default), into a scratch cache;
2. full batch: one Text GCN (hidden 200) training epoch after a warm-up epoch;
3. mini-batch: one epoch with ``--batch-size`` documents per step and fanout 32, validation
   included.

Writes the "scale" section of docs/benchmarks.md and docs/figures/scale.png.

    python benchmarks/scale.py --sizes 10000 43020 86040 --threads 1 [--phases build mini]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from _report import REPORT, command_line, machine_line, update_section
from gfbgcn.text.graph.phases import BUILD_PHASES, serial_seconds

COMMON = r"""
import json, os, resource, sys, time
from pathlib import Path
import numpy as np
limit = int(float(os.environ["SCALE_MAX_GIB"]) * 2**30)
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
from gfbgcn.text.corpus.benchmarks import load_benchmark
from gfbgcn.text.corpus.corpus import Corpus

def scale_corpus(n):
    parts = [load_benchmark(name) for name in ("r8", "r52", "ohsumed", "20ng")]
    texts = [t for p in parts for t in p.texts]
    labels = [f"{p.name}:{l}" for p in parts for l in p.labels]
    train = np.concatenate([p.is_train for p in parts])
    order = np.random.default_rng(0).permutation(len(texts))
    out_t, out_l, out_s, copy = [], [], [], 0
    while len(out_t) < n:
        rng = np.random.default_rng(copy)
        for i in order[: n - len(out_t)]:
            text = texts[i]
            if copy:
                words = text.split()
                hit = rng.random(len(words)) < 0.1
                text = " ".join(f"{w}q{copy}" if h else w for w, h in zip(words, hit))
            out_t.append(text); out_l.append(labels[i]); out_s.append(train[i])
        copy += 1
    return Corpus(f"scale{n}", out_t, out_l, np.array(out_s))

def peaks():
    return (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)
"""

BUILD = COMMON + r"""
from gfbgcn.text.graph.text_graph import build_text_graph
from gfbgcn.text.tokenize.stop_words import load_stop_words
load_stop_words("english")
corpus = scale_corpus(int(sys.argv[1]))
cpu0, t = os.times(), time.perf_counter()
g = build_text_graph(corpus)
seconds, cpu1 = time.perf_counter() - t, os.times()
cpu = sum(cpu1[:4]) - sum(cpu0[:4])  # user + system, this process and its workers
main_mib, worker_mib = peaks()
print(json.dumps({"build_s": seconds, "build_cpu_s": cpu, "build_main_mib": main_mib,
                  "build_worker_mib": worker_mib, "load": os.getloadavg()[0],
                  "nodes": g.num_nodes, "words": g.num_words,
                  "build_phases": g.build_phases,
                  "nnz": 2 * (g.num_doc_word + g.num_word_word) + g.num_nodes}))
"""

TRAIN = COMMON + r"""
import torch
from gfbgcn.text.graph.text_graph import build_text_graph
from gfbgcn.text.predict.saved import save_trained
from gfbgcn.text.train.config import TrainConfig
from gfbgcn.text.train.run import train_text
torch.set_num_threads(int(sys.argv[3]))
corpus = scale_corpus(int(sys.argv[1]))
cpu0, t = os.times(), time.perf_counter()
g = build_text_graph(corpus)  # from the cache the build wrote
batch = int(sys.argv[2])
mini = dict(optimizer=sys.argv[4], fanout=int(sys.argv[5]), row_budget=int(sys.argv[6]))
cfg = TrainConfig(model="gcn", epochs=1 if batch else 2, patience=5, batch_size=batch,
                  **(mini if batch else {}))
r = train_text(g, cfg, progress=False, device="cpu")
out = {"epoch_s": r.history[-1]["seconds"], "peak_mib": peaks()[0],
       "run_s": time.perf_counter() - t, "run_cpu_s": sum(os.times()[:4]) - sum(cpu0[:4]),
       "test_acc": r.test["accuracy"], "steps": r.history[-1].get("batches")}
if len(sys.argv) > 7:  # --save: the trained model as `gfbgcn train --save` writes it
    cpu0, t = os.times(), time.perf_counter()
    saved = save_trained(sys.argv[7], r, g, corpus)
    out.update(save_s=time.perf_counter() - t, save_cpu_s=sum(os.times()[:4]) - sum(cpu0[:4]),
               save_peak_mib=peaks()[0],
               model_mib=sum(f.stat().st_size for f in Path(saved).rglob("*") if f.is_file())
               / 2**20)
print(json.dumps(out))
"""


def child(code: str, *args: str, env: dict[str, str]) -> dict | None:
    """The phase's JSON line, or None when it failed (e.g. MemoryError at the limit)."""
    run = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                         env=env)
    if run.returncode != 0:
        print(f"phase {args} failed (exit {run.returncode}): {run.stderr.strip()[-300:]}",
              file=sys.stderr, flush=True)
        return None
    return json.loads(run.stdout.strip().splitlines()[-1])


def _points(rows: list[dict], key: str) -> tuple[list[int], list[float]]:
    done = [r for r in rows if r.get(key) is not None]
    return [r["docs"] for r in done], [r[key] for r in done]


def plot(rows: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    for key, label in (("build_s", "graph build"), ("full_s", "full-batch epoch"),
                       ("mini_s", "mini-batch epoch")):
        ax1.plot(*_points(rows, key), "o-", label=label)
    for key, label in (("build_main_mib", "build (main process)"),
                       ("full_mib", "full-batch training"), ("mini_mib", "mini-batch training")):
        docs, mib = _points(rows, key)
        ax2.plot(docs, [m / 1024 for m in mib], "o-", label=label)
    for ax, ylabel in ((ax1, "seconds"), (ax2, "peak RSS (GiB)")):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("documents")
        ax.set_ylabel(ylabel)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)


def measure(n: int, phases: list[str], batch_size: int, threads: int, env: dict,
            optimizer: str = "adam", save_dir: str | None = None, fanout: int = 32,
            row_budget: int = 0) -> dict:
    row: dict = {"docs": n, "phases": phases, "optimizer": optimizer}
    if "mini" in phases:  # the mini-batch settings, where a mini-batch epoch runs
        row.update(fanout=fanout, row_budget=row_budget, batch_size=batch_size)
    if "build" in phases:
        build = child(BUILD, str(n), env=env)
        row.update(build or {"build_failed": True})
    for phase, batch in (("full", 0), ("mini", batch_size)):
        if phase in phases and row.get("build_failed"):  # it would build the graph itself
            row[f"{phase}_failed"] = True
        elif phase in phases:
            save = [str(Path(save_dir) / f"model{n}")] if save_dir and phase == "mini" else []
            got = child(TRAIN, str(n), str(batch), str(threads), optimizer, str(fanout),
                        str(row_budget), *save, env=env)
            row.update({f"{phase}_s": got["epoch_s"], f"{phase}_mib": got["peak_mib"]} if got
                       else {f"{phase}_failed": True})
            if got and phase == "mini":  # the whole run: loading, epoch, test evaluation, save
                row.update({f"mini_{k}": v for k, v in got.items()
                            if k not in ("epoch_s", "peak_mib")})
    return row


def _cell(row: dict, phase: str, text: str) -> str:
    if row.get(f"{phase}_failed"):
        return "failed"
    return text if phase in row["phases"] and not row.get(f"{phase}_failed") else "–"


def table_row(r: dict) -> str:
    built = "build" in r["phases"] and not r.get("build_failed")
    graph = (f"{r['words']:,} | {r['nodes']:,} | {r['nnz'] / 1e6:.1f} M" if built
             else "– | – | –")
    build = _cell(r, "build", f"{r.get('build_s', 0):.1f} | {r.get('build_cpu_s', 0):.1f} | "
                  f"{r.get('load', 0):.1f} | {r.get('build_main_mib', 0) / 1024:.2f} | "
                  f"{r.get('build_worker_mib', 0) / 1024:.2f}")
    if not built:
        build = " | ".join([build] * 5)
    full = (_cell(r, "full", f"{r.get('full_s', 0):.1f}") + " | "
            + _cell(r, "full", f"{r.get('full_mib', 0) / 1024:.2f}"))
    mini = (_cell(r, "mini", f"{r.get('mini_s', 0):.1f}") + " | "
            + _cell(r, "mini", f"{r.get('mini_mib', 0) / 1024:.2f}"))
    code = ("–" if "mini" not in r["phases"] else
            r.get("mini_optimizer", "earlier trainer"))
    if "mini" in r["phases"] and "row_budget" in r:  # the mini-batch settings of later runs
        code += (f", batch {r['batch_size']:,}, fanout {r['fanout']}"
                 + (f", row budget {r['row_budget']:,}" if r["row_budget"] else ""))
    return f"| {r['docs']:,} | {graph} | {build} | {full} | {mini} | {code} |"


def end_to_end_row(r: dict) -> str:
    """Build, one mini-batch epoch with its test accuracy, and the saved model of one size."""
    gib = lambda key: f"{r[key] / 1024:.2f}"  # noqa: E731
    build = (f"{r['build_s']:.0f} | {r['build_cpu_s']:.0f} | "
             f"{gib('build_main_mib')} + {gib('build_worker_mib')}" if "build_s" in r
             else "– | – | –")
    return (f"| {r['docs']:,} | {build} | {r['mini_run_s']:.0f} | "
            f"{r['mini_run_cpu_s']:.0f} | {gib('mini_mib')} | {r['mini_test_acc']:.4f} | "
            f"{r['mini_save_s']:.0f} | {r['mini_save_cpu_s']:.0f} | {gib('mini_save_peak_mib')} | "
            f"{r['mini_model_mib']:,.0f} |")


def merged_rows(path: Path) -> list[dict]:
    """Every size's measurements, later runs overriding earlier ones phase by phase (a size
    built once can have its training phases measured again later)."""
    latest: dict[int, dict] = {}
    for line in path.read_text().splitlines():
        row = json.loads(line)
        if "optimizer" in row and "mini" in row["phases"]:
            row["mini_optimizer"] = row["optimizer"]
        old = latest.get(row["docs"], {"phases": []})
        for phase in row["phases"]:  # a re-run phase replaces the old one's failure mark
            old.pop(f"{phase}_failed", None)
        phases = sorted(set(old["phases"]) | set(row["phases"]))
        latest[row["docs"]] = {**old, **row, "phases": phases}
    return [latest[n] for n in sorted(latest)]


def phases_table(rows: list[dict]) -> list[str]:
    """Where the build time goes: each phase's wall seconds, and the main process's serial share."""
    done = [r for r in rows if r.get("build_phases") and "build_s" in r]
    if not done:
        return []
    names = list(BUILD_PHASES)
    lines = [
        "",
        "Where the build's wall time goes (`TextGraph.build_phases`; *parallel*: the pool's "
        "workers share the phase, *serial*: the main process alone; the cache write is not part "
        "of *build s* above). The serial share bounds what more cores can give.",
        "",
        "| documents | " + " | ".join(f"{n} ({'parallel' if BUILD_PHASES[n] else 'serial'})"
                                     for n in names) + " | serial s | serial share |",
        "|---|" + "---|" * (len(names) + 2),
    ]
    for r in done:
        ph = r["build_phases"]
        serial = serial_seconds(ph)
        lines.append(f"| {r['docs']:,} | " + " | ".join(f"{ph.get(n, 0):.1f}" for n in names)
                     + f" | {serial:.1f} | {serial / max(sum(ph.values()), 1e-9):.0%} |")
    return lines


def per_document_table(rows: list[dict]) -> list[str]:
    """The mini-batch epoch per document, and each size's growth against the last: the check
    that an epoch grows no faster than the corpus."""
    done = [r for r in rows if r.get("mini_s") and r.get("mini_steps")]
    if len(done) < 2:
        return []
    lines = ["", "Mini-batch epoch against the corpus: *per document*: epoch seconds over the "
             "documents; *growth*: epoch time over the previous size's, beside the documents' "
             "ratio (linear growth: the two equal).", "",
             "| documents | steps | epoch s | µs per document | growth (epoch / documents) |",
             "|---|---|---|---|---|"]
    for before, r in zip([None, *done], done):
        growth = ("–" if before is None else f"{r['mini_s'] / before['mini_s']:.2f}× / "
                  f"{r['docs'] / before['docs']:.2f}×")
        lines.append(f"| {r['docs']:,} | {r['mini_steps']:,} | {r['mini_s']:.1f} | "
                     f"{r['mini_s'] / r['docs'] * 1e6:.0f} | {growth} |")
    return lines


def end_to_end_table(rows: list[dict]) -> list[str]:
    done = [r for r in rows if "mini_save_s" in r]
    if not done:
        return []
    return [
        "",
        "End to end (`--save`): the build as above, then one process that loads the graph from "
        "the cache, trains one mini-batch epoch, evaluates on the test documents and saves the "
        "model as `gfbgcn train --save` does. *run*: from loading the graph out of the cache to "
        "the test accuracy (wall and CPU seconds, peak RSS); *save*: `save_trained` (its own "
        "wall and CPU seconds; the process's peak RSS after it); *model*: the saved directory. One "
        "epoch is not a trained model: the accuracy shows the pipeline works at that size.",
        "",
        "| documents | build s | build CPU s | build peak GiB (main + worker) | run s | run CPU s "
        "| run peak GiB | test accuracy | save s | save CPU s | peak after save GiB | model MiB |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
        *map(end_to_end_row, done),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", nargs="+", type=int, default=[10_000, 43_020, 86_040])
    parser.add_argument("--phases", nargs="+", choices=["build", "full", "mini"],
                        default=["build", "full", "mini"])
    parser.add_argument("--batch-size", type=int, default=4096)
    parser.add_argument("--threads", type=int, default=1, help="torch threads of training (1)")
    parser.add_argument("--optimizer", default="adam", choices=["adam", "sparse-adam"],
                        help="optimiser of the mini-batch phase (adam)")
    parser.add_argument("--fanout", type=int, default=32,
                        help="sampled layer-1 neighbours per node in the mini-batch phase (32)")
    parser.add_argument("--row-budget", type=int, default=0,
                        help="the mini-batch phase's --row-budget (0: none)")
    parser.add_argument("--cache", type=Path, default=None,
                        help="graph cache directory kept between runs (default: a scratch "
                        "directory, removed at the end), so that a size built once can train "
                        "again later")
    parser.add_argument("--max-gib", type=float, default=12.0,
                        help="address-space limit of each phase's process, GiB (12)")
    parser.add_argument("--rows", type=Path, default=None,
                        help="JSON-lines file: append this run's rows and report every size in "
                             "it (the latest row per size), so sizes can run separately")
    parser.add_argument("--save", action="store_true",
                        help="the mini-batch phase also evaluates on the test documents and saves "
                             "the model (into the scratch directory), timed apart")
    parser.add_argument("--report-only", action="store_true",
                        help="measure nothing: re-render the section from --rows")
    parser.add_argument("--note", default="", help="a sentence on the conditions")
    parser.add_argument("--section", default="scale",
                        help="report section (and figure name) to write (scale)")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        cache = str(args.cache or scratch)
        env = {**os.environ, "GFBGCN_CACHE": cache, "SCALE_MAX_GIB": str(args.max_gib)}
        for n in [] if args.report_only else args.sizes:
            row = measure(n, args.phases, args.batch_size, args.threads, env, args.optimizer,
                          save_dir=scratch if args.save else None, fanout=args.fanout,
                          row_budget=args.row_budget)
            row["command"] = command_line()
            rows.append(row)
            print(json.dumps(row), flush=True)
            if args.rows:
                with open(args.rows, "a") as fh:
                    fh.write(json.dumps(row) + "\n")
    if args.rows:
        rows = merged_rows(args.rows)
    figure = REPORT.parent / "figures" / f"{args.section}.png"
    plot(rows, figure)
    commands = sorted({r["command"] for r in rows})
    body = "\n".join([
        "## Scale: cost against corpus size"
        + ("" if args.section == "scale" else f" ({args.section})"),
        "",
        "Command(s): " + "; ".join(f"`{c}`" for c in commands) + "  ",
        f"Machine: {machine_line(args.threads)}" + (f"; {args.note}" if args.note else ""),
        "",
        "Corpus: R8 + R52 + Ohsumed + 20NG (43,020 documents) shuffled, then copies of it with "
        "10 % of the tokens of each document replaced by a copy-specific variant (`wordqC`), so "
        "the vocabulary grows with the corpus; N documents = the first N of that stream "
        "(`benchmarks/scale.py` docstring). Build: `build_text_graph` on every core, wall and "
        "CPU seconds (user + system, workers included), the 1-minute load average at its end, "
        "peak RSS of the main process and of the largest worker. Epochs: Text GCN (hidden 200) "
        f"on the CPU with {args.threads} torch thread(s), each phase in a fresh process (peak "
        "RSS of that process, graph loading and `Â` included); full batch: the second of two "
        "epochs; mini-batch: one epoch (validation included) with the batch size, fanout and "
        "row budget of the *mini-batch code* column (rows without them: batches of 4,096 "
        "documents, fanout 32; *mini-batch code*: the optimiser of runs with the bounded-memory "
        "mini-batch trainer, whose process builds `Â` from the graph cache's mapped edge "
        "arrays and releases them; *earlier trainer*: the trainer before it). Each process runs "
        "under an address-space limit of "
        f"{args.max_gib:g} GiB; *failed*: the phase died (out of memory at that limit); "
        "–: not run. One run per size on a shared machine: read the trend, not the digits. "
        f"Plot: `docs/figures/{args.section}.png`.",
        "",
        "| documents | words | nodes | nnz(Â) | build s | build CPU s | load | build peak GiB "
        "(main) | (worker) | full-batch epoch s | full-batch peak GiB | mini-batch epoch s | "
        "mini-batch peak GiB | mini-batch code |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
        *map(table_row, rows),
        "",
        f"![cost against documents](figures/{args.section}.png)",
        *per_document_table(rows),
        *phases_table(rows),
        *end_to_end_table(rows),
    ])
    update_section(args.section, body)
    return 0


if __name__ == "__main__":
    sys.exit(main())

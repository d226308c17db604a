"""Time the Text GCN graph construction per dataset: the single-process reference build against
the sharded build with N worker processes (median of repeats, peak RSS, CPU seconds).

Each repeat runs in a fresh subprocess so that peak RSS is per build, and the graph cache is
bypassed.  Repeats of the variants are interleaved (reference, 1 worker, 2 workers, reference,
...) so that the load of a shared machine hits them alike.  Writes the "graph-build" section of
docs/benchmarks.md.

    python benchmarks/graph_build.py [--datasets r8 r52 ohsumed 20ng] [--workers 1 2] [--repeats 3]

``--check`` (writes nothing) instead builds each dataset's reference graph once and compares the
sharded build with every ``--workers`` and both co-occurrence definitions against it, array for
array (vocabulary, edges in order, weights, IDF, counts), printing one line per comparison.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

from _report import command_line, machine_line, update_section

CHILD = r"""
import json, os, resource, sys, time
from gfbgcn.text.corpus.benchmarks import load_benchmark
from gfbgcn.text.graph.text_graph import GraphConfig, build_graph_from_tokens, build_text_graph
from gfbgcn.text.tokenize.preprocess import preprocess
from gfbgcn.text.tokenize.stop_words import load_stop_words
load_stop_words("english")  # reading the list is not graph building
corpus = load_benchmark(sys.argv[1])
variant = sys.argv[2]
cpu0, t = os.times(), time.perf_counter()
if variant == "reference":  # the single-process, single-pass build (before sharding)
    g = build_graph_from_tokens(preprocess(corpus.texts), corpus, GraphConfig(), "textgcn")
else:
    g = build_text_graph(corpus, cache=False, workers=int(variant))
seconds = time.perf_counter() - t
cpu1 = os.times()
cpu = (cpu1.user + cpu1.system + cpu1.children_user + cpu1.children_system
       - cpu0.user - cpu0.system - cpu0.children_user - cpu0.children_system)
print(json.dumps({"seconds": seconds, "cpu": cpu,
                  "main_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "worker_mib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
                  "stats": g.stats()}))
"""


CHECK = r"""
import sys
import numpy as np
from gfbgcn.text.corpus.benchmarks import load_benchmark
from gfbgcn.text.graph.text_graph import GraphConfig, build_graph_from_tokens, build_text_graph
from gfbgcn.text.tokenize.preprocess import preprocess
corpus = load_benchmark(sys.argv[1])
for mode in ("window", "pair"):
    config = GraphConfig(cooccurrence=mode)
    ref = build_graph_from_tokens(preprocess(corpus.texts), corpus, config, "textgcn")
    for workers in map(int, sys.argv[2:]):
        g = build_text_graph(corpus, config, cache=False, workers=workers)
        same = (g.vocab == ref.vocab and g.stats() == ref.stats() and g.notes == ref.notes
                and all(np.array_equal(getattr(g, a), getattr(ref, a)) for a in
                        ("edge_index", "edge_weight", "idf", "word_count", "doc_lengths")))
        print(f"{sys.argv[1]}: {mode} co-occurrence, {workers} worker(s): "
              f"{'identical' if same else 'DIFFERENT'} ({g.edge_index.shape[1]:,} edges)",
              flush=True)
"""


def measure(name: str, variants: list[str], repeats: int) -> dict[str, list[dict]]:
    runs: dict[str, list[dict]] = {v: [] for v in variants}
    for _ in range(repeats):
        for variant in variants:
            out = subprocess.run([sys.executable, "-c", CHILD, name, variant], check=True,
                                 capture_output=True, text=True).stdout
            runs[variant].append(json.loads(out.strip().splitlines()[-1]))
    return runs


def rows_of(name: str, runs: dict[str, list[dict]]) -> list[str]:
    ref = (statistics.median(r["seconds"] for r in runs["reference"])
           if "reference" in runs else None)
    rows = []
    for variant, rs in runs.items():
        s = rs[0]["stats"]
        seconds = statistics.median(r["seconds"] for r in rs)
        label = ("reference (1 process)" if variant == "reference"
                 else f"sharded, {variant} worker(s)")
        workers = "–" if variant == "reference" or variant == "1" else \
            f"{max(r['worker_mib'] for r in rs):,.0f}"
        rows.append(
            f"| {name} | {label} | {s['nodes']:,} | {s['doc_word_edges']:,} | "
            f"{s['word_word_edges']:,} | {seconds:.1f} | "
            f"{(ref / seconds if ref else float('nan')):.2f}× | "
            f"{statistics.median(r['cpu'] for r in rs):.1f} | "
            f"{max(r['main_mib'] for r in rs):,.0f} | {workers} |"
        )
        print(rows[-1], flush=True)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--datasets", nargs="+", default=["r8", "r52", "ohsumed", "20ng"])
    parser.add_argument("--workers", nargs="+", type=int, default=[1, 2])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--note", default="", help="a sentence on the conditions, for the report")
    parser.add_argument("--check", action="store_true",
                        help="compare the sharded builds with the reference instead of timing")
    args = parser.parse_args()
    if args.check:
        for name in args.datasets:
            subprocess.run([sys.executable, "-c", CHECK, name, *map(str, args.workers)],
                           check=True)
        return 0
    variants = ["reference", *map(str, args.workers)]
    rows = []
    for name in args.datasets:
        rows += rows_of(name, measure(name, variants, args.repeats))
    body = "\n".join([
        "## Text graph construction",
        "",
        f"Command: `{command_line()}`  ",
        f"Machine: {machine_line()}" + (f"; {args.note}" if args.note else ""),
        "",
        "Wall time of the graph build (tokenisation, stop/rare-word removal, TF-IDF, PMI over "
        f"windows of 20, assembly), cache bypassed, median of {args.repeats} runs, each in a fresh "
        "process, the variants interleaved. *Reference*: the single-process, single-pass build "
        "(`preprocess` + `build_graph_from_tokens`, the build before the sharded one). *Sharded*: "
        "`build_text_graph(workers=N)` (`--workers N`; tokenising and window counting per shard "
        "of documents in a pool of N forked processes, sparse counts merged, the default "
        "tokenizer run over whole shards as byte arrays, PMI and edge arrays written in place; "
        "the graph is identical, which `tests/text/graph/test_sharded.py` checks). With 1 "
        "worker everything runs in the calling process. *Speed-up* is against the "
        "reference of the same dataset in the same run: on a shared machine compare these "
        "ratios, not absolute seconds. *CPU s*: user + system seconds of the process and its "
        "workers. *Main MiB*: peak RSS of the building process (Python, torch and the corpus "
        "included); *worker MiB*: the largest peak RSS of one worker (pages shared with the "
        "parent after fork are counted in both).",
        "",
        "| dataset | build | nodes | doc-word edges | word-word edges | seconds | speed-up | "
        "CPU s | main MiB | worker MiB |",
        "|---|---|---|---|---|---|---|---|---|---|",
        *rows,
    ])
    update_section("graph-build", body)
    return 0


if __name__ == "__main__":
    sys.exit(main())

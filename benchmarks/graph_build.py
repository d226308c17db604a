"""Time the Text GCN graph construction per dataset (median of repeats, peak RSS).

Each repeat runs in a fresh subprocess so that peak RSS is per build, and the graph cache is
bypassed.  Writes the "graph-build" section of docs/benchmarks.md.

    python benchmarks/graph_build.py [--datasets r8 r52 ohsumed 20ng] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

from _report import command_line, machine_line, update_section

CHILD = r"""
import json, resource, sys, time
from gfbgcn.text.data import load_benchmark
from gfbgcn.text.graph import build_text_graph
from gfbgcn.text.preprocess import nltk_stop_words
nltk_stop_words("english")  # NLTK's import (~2 s) is not graph building
corpus = load_benchmark(sys.argv[1])
t = time.perf_counter()
g = build_text_graph(corpus, cache=False)
seconds = time.perf_counter() - t
print(json.dumps({"seconds": seconds, "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "stats": g.stats()}))
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--datasets", nargs="+", default=["r8", "r52", "ohsumed", "20ng"])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    rows = []
    for name in args.datasets:
        runs = []
        for _ in range(args.repeats):
            out = subprocess.run([sys.executable, "-c", CHILD, name], check=True,
                                 capture_output=True, text=True).stdout
            runs.append(json.loads(out.strip().splitlines()[-1]))
        s = runs[0]["stats"]
        rows.append(
            f"| {name} | {s['nodes']:,} | {s['doc_word_edges']:,} | {s['word_word_edges']:,} | "
            f"{statistics.median(r['seconds'] for r in runs):.1f} | "
            f"{max(r['peak_mib'] for r in runs):,.0f} |"
        )
        print(rows[-1], flush=True)
    body = "\n".join([
        "## Text graph construction",
        "",
        f"Command: `{command_line()}`  ",
        f"Machine: {machine_line()}",
        "",
        "Wall time of `build_text_graph` (tokenisation, stop/rare-word removal, TF-IDF, PMI over "
        f"windows of 20, assembly), cache bypassed, median of {args.repeats} runs, each in a fresh "
        "process; peak RSS is the process maximum (Python, torch and the corpus included). "
        "Reference points from the issue: Text GCN's `build_graph.py` takes about 220 s and "
        "1.5 GB on R8 on this kind of machine; targets are R8 in a few seconds and 20NG under "
        "60 s and 4 GB.",
        "",
        "| dataset | nodes | doc-word edges | word-word edges | seconds | peak RSS MiB |",
        "|---|---|---|---|---|---|",
        *rows,
    ])
    update_section("graph-build", body)
    return 0


if __name__ == "__main__":
    sys.exit(main())

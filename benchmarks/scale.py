"""Cost against corpus size: graph build, full-batch and mini-batch training epochs.

The corpus: the four benchmarks (R8, R52, Ohsumed, 20NG: 43,020 documents, labels prefixed by
the data set, their own train/test splits) in a fixed shuffled order, then copies of it; in
copy ``c >= 1`` 10 % of the whitespace-separated tokens of every document (chosen with seed
``c``) are replaced by ``<token>~c``, so every copy adds new words (the vocabulary grows
with the corpus, as in a real archive) while keeping the documents' length and class signal.
A size of N documents takes the first N of this stream.

Per size, three fresh processes (so each peak RSS is that phase's own):

1. build: ``build_text_graph`` with every core (``--workers`` default), into a scratch cache;
2. full batch: one Text GCN (hidden 200) training epoch after a warm-up epoch;
3. mini-batch: one epoch with ``--batch-size`` documents per step and fanout 32, validation
   included.

Writes the "scale" section of docs/benchmarks.md and docs/figures/scale.png.

    python benchmarks/scale.py --sizes 10000 43020 86040 --threads 1
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

COMMON = r"""
import json, resource, sys, time
import numpy as np
from gfbgcn.text.data import Corpus, load_benchmark

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
                text = " ".join(f"{w}~{copy}" if h else w for w, h in zip(words, hit))
            out_t.append(text); out_l.append(labels[i]); out_s.append(train[i])
        copy += 1
    return Corpus(f"scale{n}", out_t, out_l, np.array(out_s))

def peaks():
    return (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)
"""

BUILD = COMMON + r"""
from gfbgcn.text.graph import build_text_graph
from gfbgcn.text.preprocess import nltk_stop_words
nltk_stop_words("english")
corpus = scale_corpus(int(sys.argv[1]))
t = time.perf_counter()
g = build_text_graph(corpus)
seconds = time.perf_counter() - t
main_mib, worker_mib = peaks()
print(json.dumps({"build_s": seconds, "build_main_mib": main_mib, "build_worker_mib": worker_mib,
                  "nodes": g.num_nodes, "words": g.num_words,
                  "nnz": 2 * (g.num_doc_word + g.num_word_word) + g.num_nodes}))
"""

TRAIN = COMMON + r"""
import torch
from gfbgcn.text.graph import build_text_graph
from gfbgcn.text.train import TrainConfig, train_text
torch.set_num_threads(int(sys.argv[3]))
g = build_text_graph(scale_corpus(int(sys.argv[1])))  # from the cache the build wrote
batch = int(sys.argv[2])
cfg = TrainConfig(model="gcn", epochs=1 if batch else 2, patience=5, batch_size=batch)
r = train_text(g, cfg, progress=False)
print(json.dumps({"epoch_s": r.history[-1]["seconds"], "peak_mib": peaks()[0]}))
"""


def child(code: str, *args: str, env: dict[str, str]) -> dict:
    out = subprocess.run([sys.executable, "-c", code, *args], check=True, capture_output=True,
                         text=True, env=env).stdout
    return json.loads(out.strip().splitlines()[-1])


def plot(rows: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    docs = [r["docs"] for r in rows]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    for key, label in (("build_s", "graph build"), ("full_s", "full-batch epoch"),
                       ("mini_s", "mini-batch epoch")):
        ax1.plot(docs, [r[key] for r in rows], "o-", label=label)
    for key, label in (("build_main_mib", "build (main process)"),
                       ("full_mib", "full-batch training"), ("mini_mib", "mini-batch training")):
        ax2.plot(docs, [r[key] / 1024 for r in rows], "o-", label=label)
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", nargs="+", type=int, default=[10_000, 43_020, 86_040])
    parser.add_argument("--batch-size", type=int, default=4096)
    parser.add_argument("--threads", type=int, default=1, help="torch threads of training (1)")
    parser.add_argument("--note", default="", help="a sentence on the conditions")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "GFBGCN_CACHE": cache}
        for n in args.sizes:
            row = {"docs": n, **child(BUILD, str(n), env=env)}
            full = child(TRAIN, str(n), "0", str(args.threads), env=env)
            mini = child(TRAIN, str(n), str(args.batch_size), str(args.threads), env=env)
            row.update(full_s=full["epoch_s"], full_mib=full["peak_mib"],
                       mini_s=mini["epoch_s"], mini_mib=mini["peak_mib"])
            rows.append(row)
            print(json.dumps(row), flush=True)
    figure = REPORT.parent / "figures" / "scale.png"
    plot(rows, figure)
    table = [
        f"| {r['docs']:,} | {r['nodes']:,} | {r['nnz'] / 1e6:.1f} M | {r['build_s']:.1f} | "
        f"{r['build_main_mib'] / 1024:.2f} | {r['build_worker_mib'] / 1024:.2f} | "
        f"{r['full_s']:.1f} | {r['full_mib'] / 1024:.2f} | {r['mini_s']:.1f} | "
        f"{r['mini_mib'] / 1024:.2f} |"
        for r in rows
    ]
    body = "\n".join([
        "## Scale: cost against corpus size",
        "",
        f"Command: `{command_line()}`  ",
        f"Machine: {machine_line(args.threads)}" + (f"; {args.note}" if args.note else ""),
        "",
        "Corpus: R8 + R52 + Ohsumed + 20NG (43,020 documents) shuffled, then copies of it with "
        "10 % of the tokens of each document replaced by a copy-specific variant (`word~c`), so "
        "the vocabulary grows with the corpus; N documents = the first N of that stream "
        "(`benchmarks/scale.py` docstring). Build: `build_text_graph` on every core, peak RSS "
        "of the main process and of the largest worker. Epochs: Text GCN (hidden 200) on the "
        f"CPU with {args.threads} torch thread(s), each phase in a fresh process (peak RSS of "
        "that process, graph loading and `Â` included); full batch: the second of two epochs; "
        f"mini-batch: one epoch of batches of {args.batch_size:,} documents, fanout 32, "
        "validation included. One run per size on a shared machine: read the trend, not the "
        "digits. Plot: `docs/figures/scale.png`.",
        "",
        "| documents | nodes | nnz(Â) | build s | build peak GiB (main) | (worker) | "
        "full-batch epoch s | full-batch peak GiB | mini-batch epoch s | mini-batch peak GiB |",
        "|---|---|---|---|---|---|---|---|---|---|",
        *table,
        "",
        "![cost against documents](figures/scale.png)",
    ])
    update_section("scale", body)
    return 0


if __name__ == "__main__":
    sys.exit(main())

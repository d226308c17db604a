"""Layer 1's ``Â @ X`` on the CPU, whole or in column blocks -> docs/benchmarks.md.

``Â`` is a text graph's normalised CSR adjacency and ``X`` a ``[N, 200]`` float32 table (layer
1's ``W1``, or its gradient in the backward).  torch's CSR product (MKL on x86) slows down
more than in proportion to the width of ``X``; the same product computed on contiguous column
blocks of ``X`` and concatenated gives the same bits (checked here on every graph, block width
and thread count) in less time.  Medians of ``--repeat`` calls after two warm-ups, in one
process, for each graph of an ``--auto`` search's largest candidates.

    python benchmarks/spmm_blocks.py --threads 1 2
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import torch

from _report import command_line, machine_line, update_section
from auto_time import dataset_arg
from gfbgcn.nn.sparse import csr_matmul
from gfbgcn.text.corpus.benchmarks import load_corpus
from gfbgcn.text.graph.adjacency import graph_adjacency
from gfbgcn.text.graph.text_graph import GraphConfig, build_text_graph

#: (corpus, stop words, min_freq): R8's three graphs of an ``--auto`` search with the most
#: entries, a sentence corpus's largest, and Ohsumed's default
GRAPHS = [("r8", "english", 5), ("r8", "english", 1), ("r8", None, 1),
          ("subjectivity", None, 1), ("ohsumed", "english", 5)]
BLOCKS = [0, 8, 16, 32, 64]  # column-block widths of csr_matmul; 0: the whole product


def median_ms(adj: torch.Tensor, x: torch.Tensor, block: int, repeat: int) -> float:
    """Median milliseconds of ``csr_matmul(adj, x, block)`` after two warm-up calls."""
    times = []
    for i in range(repeat + 2):
        start = time.perf_counter()
        csr_matmul(adj, x, block)
        if i >= 2:
            times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    p.add_argument("--width", type=int, default=200)
    p.add_argument("--repeat", type=int, default=10)
    p.add_argument("--no-write", action="store_true", help="print only")
    args = p.parse_args(argv)
    lines = []
    for name, stop, min_freq in GRAPHS:
        graph = build_text_graph(load_corpus(dataset_arg(name)),
                                 GraphConfig(stop_words=stop, min_freq=min_freq))
        adj = graph_adjacency(graph)
        x = torch.randn(adj.shape[1], args.width, generator=torch.Generator().manual_seed(0))
        for threads in args.threads:
            torch.set_num_threads(threads)
            whole = adj @ x
            cells = []
            for width in BLOCKS:
                same = torch.equal(csr_matmul(adj, x, width), whole)
                ms = median_ms(adj, x, width, args.repeat)
                cells.append(f"{ms:.1f}" + ("" if same else " (differs)"))
            lines.append(f"| {name} stop={stop or 'none'} min_freq={min_freq} | {adj.shape[0]:,} "
                         f"| {adj.values().numel():,} | {threads} | " + " | ".join(cells) + " |")
            print(lines[-1], flush=True)
    head = " | ".join("whole" if w == 0 else f"blocks of {w}" for w in BLOCKS)
    body = "\n".join([
        "## Layer 1's sparse product on the CPU, whole or in column blocks", "",
        f"Command: `{command_line()}`  ",
        f"Machine: {machine_line()}", "",
        f"Milliseconds of `Â @ X` for a `[N, {args.width}]` float32 `X` (median of "
        f"{args.repeat} calls after two warm-ups, one process); \"differs\" marks a blocked "
        "product whose bits differ from the whole one (none should).", "",
        f"| graph | N | entries | threads | {head} |",
        "|---|---|---|---|" + "---|" * len(BLOCKS),
        *lines,
    ])
    print(body)
    if not args.no_write:
        update_section("spmm-blocks", body)
    return 0


if __name__ == "__main__":
    sys.exit(main())

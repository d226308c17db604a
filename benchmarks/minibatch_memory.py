"""What a mini-batch training process holds, per entry of ``Â`` and per node, item by item.

Counts the bytes of the live arrays of one mini-batch set-up (the graph loaded from its cache,
``Â``, the sampler, one epoch's layer-1 sample, the model after one optimiser step with each
optimiser) and divides them by ``nnz(Â)`` or by the number of nodes; the edge arrays' resident
share is measured from ``/proc/self/statm`` around :meth:`TextGraph.release_edges`.  The
"before" column is what was measured for the code before the bounded-memory mini-batch
trainer (int64 edge arrays kept,
int64 column indices in ``Â``, float64 prefix sums, dense Adam).  Writes the "minibatch-memory"
section of docs/benchmarks.md.

    python benchmarks/minibatch_memory.py --dataset 20ng [--hidden 200] [--fanout 32]
"""

from __future__ import annotations

import argparse
import os
import sys

import torch

from _report import command_line, machine_line, update_section

PAGE = os.sysconf("SC_PAGE_SIZE")


def rss_bytes() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * PAGE


def nbytes(*tensors: torch.Tensor) -> int:
    return sum(t.numel() * t.element_size() for t in tensors)


def _optimizer_bytes(graph, adj, optimizer: str, args) -> tuple[int, float]:
    """``(bytes of W1, its gradient and its optimiser state after one mini-batch step, share
    of W1's rows that step touched)``."""
    from gfbgcn.text.train.config import TrainConfig
    from gfbgcn.text.train.minibatch import _BatchForward
    from gfbgcn.text.train.models import build_text_model
    from gfbgcn.text.train.optim import make_optimizer
    from gfbgcn.text.train.sampler import SubgraphSampler, local_columns

    config = TrainConfig(model="gcn", hidden=args.hidden, batch_size=args.batch_size,
                         optimizer=optimizer)
    model = build_text_model("gcn", graph.num_nodes, len(graph.label_names), args.hidden)
    opt = make_optimizer(model, config)
    sampler = SubgraphSampler(adj, args.fanout)
    rows2, needed = sampler.batch_rows(torch.arange(args.batch_size))
    rows1 = sampler.sampled_rows(needed, 1)
    sparse = optimizer == "sparse-adam"
    inputs = (*local_columns(rows1), ) if sparse else (rows1, )
    step = _BatchForward(model, sparse)
    out = step(inputs[0], rows2, inputs[1]) if sparse else step(inputs[0], rows2)
    out.sum().backward()
    opt.step()
    grad = model.w1.grad
    rows = grad.coalesce().values().shape[0] if grad.is_sparse else graph.num_nodes
    parts = getattr(opt, "parts", [opt])
    state = sum(nbytes(v) for part in parts for p, s in part.state.items() if p is model.w1
                for v in s.values() if isinstance(v, torch.Tensor))
    return nbytes(model.w1) + rows * args.hidden * 4 + state, rows / graph.num_nodes


def mapped_rss(path: str) -> int:
    """Resident bytes of this process's mappings of ``path`` (``/proc/self/smaps``)."""
    total, inside = 0, False
    with open("/proc/self/smaps") as fh:
        for line in fh:
            fields = line.split()
            if "-" in fields[0] and len(fields) >= 5:  # a mapping's header line
                inside = len(fields) >= 6 and fields[5] == path
            elif inside and fields[0] == "Rss:":
                total += int(fields[1]) * 1024
    return total


def measure(args: argparse.Namespace) -> list[tuple[str, str, float, str]]:
    from gfbgcn.text.corpus.benchmarks import load_benchmark
    from gfbgcn.text.graph.adjacency import graph_adjacency
    from gfbgcn.text.graph.text_graph import build_text_graph
    from gfbgcn.text.train.sampler import SubgraphSampler

    graph = build_text_graph(load_benchmark(args.dataset))
    path = os.path.realpath(graph.cache_path)
    adj = graph_adjacency(graph, torch.int32)
    read = mapped_rss(path)
    graph.release_edges()
    kept = mapped_rss(path)
    nnz, n = adj._nnz(), adj.shape[0]
    sampler = SubgraphSampler(adj, args.fanout)
    t = sampler.tables
    layer1 = sampler.presample(step=1)
    in_memory = (graph.edge_weight.size * (16 + 4)) / nnz  # int64 pairs + float32 weights
    rows = [
        ("graph edge arrays (int32 maps of the cache file), resident", "entry", kept / nnz,
         f"{read / nnz:.1f} while `Â` is built; before: {in_memory:.1f} (int64 + float32, "
         "kept)"),
        ("Â: int32 column, float32 value", "entry", nbytes(adj.col_indices(), adj.values()) / nnz,
         "before: 12 (int64 columns)"),
        ("sampler: float32 cumulative weight", "entry", nbytes(t.cdf) / nnz,
         "before: 8 (float64 prefix sums)"),
        ("sampler: guide table (int32)", "entry", nbytes(t.guide) / nnz, "before: –"),
        ("Â: int32 row pointer", "node", nbytes(adj.crow_indices()) / n, "before: 8"),
        ("sampler: row totals, slices, guide offsets", "node",
         nbytes(t.total, t.buckets, t.guide_start) / n, "before: 16 (float64 row start, sum)"),
        (f"epoch's layer-1 sample (fanout {args.fanout})", "node",
         nbytes(layer1.crow_indices(), layer1.col_indices(), layer1.values()) / n,
         "before: – (drawn per step)"),
    ]
    for optimizer in ("adam", "sparse-adam"):
        total, share = _optimizer_bytes(graph, adj, optimizer, args)
        rows.append((f"W1 + gradient + {optimizer} state (hidden {args.hidden})", "node",
                     total / n, f"{total / n / args.hidden:.1f} × hidden; the gradient covers "
                     f"{share:.0%} of the rows (one batch of {args.batch_size}); before: 16 × "
                     "hidden"))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dataset", default="20ng")
    parser.add_argument("--hidden", type=int, default=200)
    parser.add_argument("--fanout", type=int, default=32)
    parser.add_argument("--batch-size", type=int, default=512)
    args = parser.parse_args()
    rows = measure(args)
    body = "\n".join([
        f"## What a mini-batch process holds ({args.dataset})",
        "",
        f"Command: `{command_line()}`  ",
        f"Machine: {machine_line()}",
        "",
        "Bytes of the live arrays of a mini-batch set-up divided by the entries of `Â` "
        "(nnz, self-loops included) or by the nodes. The graph's edge arrays are int32 "
        "copy-on-write maps of the cache file: they cost resident memory only while `Â` is "
        "built from them, and `release_edges()` returns those pages. *Before*: the code before "
        "the bounded-memory mini-batch trainer (as measured then).",
        "",
        "| item | per | bytes | note |",
        "|---|---|---|---|",
        *(f"| {item} | {per} | {value:.1f} | {note} |" for item, per, value, note in rows),
    ])
    update_section("minibatch-memory", body)
    print(body)
    return 0


if __name__ == "__main__":
    sys.exit(main())

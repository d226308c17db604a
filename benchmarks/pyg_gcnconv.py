"""A stock PyG ``GCNConv`` model on a benchmark's text graph: ``edge_index`` against the
sparse ``adj_t``, and gfbgcn's own GCN on the same graph.

The PyG user's model: a learned row per node (``torch.nn.Embedding(N, 200)``: Text GCN's
identity input times a weight), ``GCNConv(200, 200, cached=True)``, ReLU, dropout 0.5,
``GCNConv(200, C, cached=True)``, cross-entropy on the training documents, Adam.  Fed once the
graph's ``to_pyg()`` edge arrays (``edge_index``, ``edge_weight``), once ``data.adj_t`` made by
``T.ToSparseTensor(attr="edge_weight")`` (a ``torch.sparse`` CSR tensor).  Seconds per training
epoch (forward, backward, Adam step), the median of ``--epochs`` after one warm-up epoch, in
one process; gfbgcn's ``gcn`` (``train_text``, same graph, hidden 200) for comparison, its
``seconds_per_epoch`` (validation pass included).  Writes the ``pyg-gcnconv`` section of
docs/benchmarks.md.

    python benchmarks/pyg_gcnconv.py [--dataset r8] [--epochs 5] [--threads N]
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from _report import REPORT, command_line, machine_line, update_section


def epoch_seconds(data: Any, num_classes: int, graph_args: tuple, epochs: int) -> float:
    """Median seconds of a training epoch of the stock two-layer GCNConv model."""
    import torch
    from torch_geometric.nn import GCNConv

    torch.manual_seed(0)
    embedding = torch.nn.Embedding(data.num_nodes, 200)
    conv1, conv2 = GCNConv(200, 200, cached=True), GCNConv(200, num_classes, cached=True)
    params = [*embedding.parameters(), *conv1.parameters(), *conv2.parameters()]
    optimizer = torch.optim.Adam(params, lr=0.02)
    times = []
    for _ in range(epochs + 1):
        start = time.perf_counter()
        optimizer.zero_grad()
        hidden = torch.nn.functional.dropout(conv1(embedding.weight, *graph_args).relu(), 0.5)
        out = conv2(hidden, *graph_args)
        loss = torch.nn.functional.cross_entropy(out[data.train_mask], data.y[data.train_mask])
        loss.backward()
        optimizer.step()
        times.append(time.perf_counter() - start)
    return statistics.median(times[1:])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="r8")
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--note", default="")
    args = parser.parse_args()

    import torch
    import torch_geometric.transforms as T

    import gfbgcn
    from gfbgcn.text.train.config import TrainConfig
    from gfbgcn.text.train.run import train_text

    if args.threads:
        torch.set_num_threads(args.threads)
    graph = gfbgcn.build_graph(args.dataset)
    data = graph.to_pyg()
    classes = len(graph.label_names)
    sparse = T.ToSparseTensor(attr="edge_weight")(graph.to_pyg())
    rows = {
        "PyG `GCNConv`, `edge_index` + `edge_weight`":
            epoch_seconds(data, classes, (data.edge_index, data.edge_weight), args.epochs),
        "PyG `GCNConv`, `adj_t` (`T.ToSparseTensor`)":
            epoch_seconds(data, classes, (sparse.adj_t,), args.epochs),
        "gfbgcn `gcn` (`gfbgcn train --model gcn`)":
            train_text(graph, TrainConfig(model="gcn", epochs=args.epochs, patience=10**6),
                       progress=False).seconds_per_epoch,
    }
    base = rows["gfbgcn `gcn` (`gfbgcn train --model gcn`)"]
    lines = [
        "## A stock PyG GCNConv on a text graph",
        "",
        f"Command: `{command_line()}`  ",
        f"Machine: {machine_line(args.threads or None)}" + (f"; {args.note}" if args.note
                                                           else ""),
        "",
        f"{args.dataset}: {graph.num_nodes:,} nodes, {len(graph.edge_weight):,} directed "
        "edges. Seconds per training epoch (forward, backward, Adam step) of a learned "
        "200-d row per node, `GCNConv(200, 200, cached=True)`, ReLU, dropout, "
        "`GCNConv(200, C, cached=True)`, fed the edge arrays of `graph.to_pyg()` or its "
        "`adj_t`; gfbgcn's own two-layer GCN (its validation pass included) for comparison. "
        f"Median of {args.epochs} epochs after one warm-up. With `edge_index`, `GCNConv` "
        "gathers one 200-d message per edge and scatters them back; with `adj_t` it makes "
        "one sparse-dense product.",
        "",
        "| model | s / epoch | × gfbgcn gcn |",
        "|---|---|---|",
        *[f"| {name} | {sec:.3f} | {sec / base:.1f}× |" for name, sec in rows.items()],
    ]
    update_section("pyg-gcnconv", "\n".join(lines), REPORT)
    print("\n".join(lines))


if __name__ == "__main__":
    main()

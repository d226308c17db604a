"""A tiny graph-classification data set in the TU format, written where a test wants it."""

from __future__ import annotations

from pathlib import Path

import torch
from torch_geometric.data import Data

# (nodes, undirected edges, graph label, node labels): labels -1/1 as in many TU files
TOY = [
    (3, [(0, 1), (1, 2)], 1, [0, 1, 0]),
    (2, [(0, 1)], -1, [2, 2]),
    (4, [(0, 1), (0, 2), (0, 3)], 1, [0, 0, 1, 2]),
    (3, [(0, 1), (1, 2), (2, 0)], -1, [1, 1, 1]),
    (2, [(0, 1)], 1, [2, 0]),
]


def write_tu(root: Path, name: str = "TOY", node_labels: bool = True) -> Path:
    """The TU files of TOY under ``root/tu/<name>/raw`` (1-based node ids, both directions)."""
    raw = root / "tu" / name / "raw"
    raw.mkdir(parents=True)
    edges, indicator, labels, tags, offset = [], [], [], [], 0
    for gid, (n, pairs, label, node_tags) in enumerate(TOY, 1):
        for a, b in pairs:
            edges += [f"{a + offset + 1}, {b + offset + 1}", f"{b + offset + 1}, {a + offset + 1}"]
        indicator += [str(gid)] * n
        labels.append(str(label))
        tags += [str(t) for t in node_tags]
        offset += n
    (raw / f"{name}_A.txt").write_text("\n".join(edges) + "\n")
    (raw / f"{name}_graph_indicator.txt").write_text("\n".join(indicator) + "\n")
    (raw / f"{name}_graph_labels.txt").write_text("\n".join(labels) + "\n")
    if node_labels:
        (raw / f"{name}_node_labels.txt").write_text("\n".join(tags) + "\n")
    return raw


def random_graphs(n: int, seed: int = 0) -> list[Data]:
    """``n`` random graphs of 1-8 nodes, 3 features each and labels 0-2 in turn (seeded)."""
    g = torch.Generator().manual_seed(seed)
    out = []
    for i in range(n):
        nodes = int(torch.randint(1, 9, (1,), generator=g))
        edges = int(torch.randint(0, 3 * nodes, (1,), generator=g))
        ei = torch.randint(0, nodes, (2, edges), generator=g)
        x = torch.randn(nodes, 3, generator=g)
        out.append(Data(x=x, edge_index=ei, y=torch.tensor([i % 3])))
    return out

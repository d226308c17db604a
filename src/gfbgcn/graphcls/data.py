"""Graph-classification data sets with the node features of the paper's protocol.

"We only make use of discrete node features.  In case they are not given, we use one-hot
encodings of node degrees as feature input." (supplement, section "Graph Classification").

| data set      | source                                   | node features ``x``                     |
|---------------|------------------------------------------|-----------------------------------------|
| MUTAG         | ``tu/MUTAG/raw`` via PyG ``TUDataset``    | one-hot node label (7)                  |
| PROTEINS      | ``tu/PROTEINS/raw`` via ``TUDataset``     | one-hot node label (3)                  |
| IMDB-BINARY   | ``tu/IMDB-BINARY/raw`` via ``TUDataset``  | PyG ``OneHotDegree(max degree = 135)``  |
| REDDIT-BINARY | ``tu/REDDIT-BINARY/raw`` via ``TUDataset``| capped one-hot degree + log-degree (66) |
| COLLAB        | ``tu_s2v/COLLAB.zip`` via :mod:`.s2v`     | capped one-hot degree + log-degree (66) |

"Capped" (REDDIT-BINARY max degree 3,062; COLLAB 491): ``one_hot(min(deg, 64), 65)`` followed
by one column ``log(1 + deg) / log(1 + max_deg)`` (max over the whole data set), so nodes of
degree >= 64 share the last bin but stay distinguishable by the last column.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import torch
from torch import Tensor
from torch_geometric.data import Data
from torch_geometric.datasets import TUDataset
from torch_geometric.transforms import OneHotDegree
from torch_geometric.utils import degree

from gfbgcn.graphcls.s2v import read_s2v_zip
from gfbgcn.paths import cache_dir, data_root

DATASETS: tuple[str, ...] = ("MUTAG", "PROTEINS", "IMDB-BINARY", "REDDIT-BINARY", "COLLAB")
#: data sets whose degree one-hot would be too wide: capped one-hot + normalised log-degree
CAPPED: frozenset[str] = frozenset({"REDDIT-BINARY", "COLLAB"})
DEGREE_CAP: int = 64
#: data sets read from the S2V zip (no TU raw files are provided for them)
FROM_S2V: frozenset[str] = frozenset({"COLLAB"})


@dataclass
class GraphDataset:
    """A list of PyG graphs (``x`` [n, F] float, ``edge_index`` [2, e], ``y`` [1]) plus facts."""

    name: str
    graphs: list[Data]
    num_features: int
    num_classes: int
    feature_desc: str
    info: dict[str, object] = field(default_factory=dict)

    @property
    def y(self) -> Tensor:
        """[G] labels."""
        return torch.cat([g.y.view(-1) for g in self.graphs])


def _tu_root(root: Path, name: str) -> Path:
    """A writable TUDataset root whose ``<name>/raw`` links to the read-only raw files."""
    src = root / "tu" / name / "raw"
    if not src.is_dir():
        raise FileNotFoundError(f"TU raw files not found: {src}")
    tu_root = cache_dir("tu")
    raw = tu_root / name / "raw"
    raw.parent.mkdir(parents=True, exist_ok=True)
    if raw.is_symlink() and raw.resolve() != src.resolve():
        raw.unlink()
    if not raw.exists():
        tmp = raw.with_name(f".raw.{os.getpid()}")
        tmp.unlink(missing_ok=True)
        tmp.symlink_to(src.resolve(), target_is_directory=True)
        os.replace(tmp, raw)
    return tu_root


def _degrees(g: Data) -> Tensor:
    """Out-degree of every node ([n] long); edges are symmetric in these data sets."""
    return degree(g.edge_index[0], num_nodes=g.num_nodes, dtype=torch.long)


def capped_degree_features(graphs: list[Data], cap: int = DEGREE_CAP) -> int:
    """Set ``x = [one_hot(min(deg, cap)), log1p(deg)/log1p(max_deg)]`` in place; return width."""
    degs = [_degrees(g) for g in graphs]
    max_deg = max(int(d.max()) if d.numel() else 0 for d in degs)
    scale = float(torch.log1p(torch.tensor(float(max(max_deg, 1)))))
    for g, d in zip(graphs, degs):
        onehot = torch.nn.functional.one_hot(d.clamp(max=cap), cap + 1).float()
        logd = torch.log1p(d.float()).unsqueeze(-1) / scale
        g.x = torch.cat([onehot, logd], dim=-1)
    return cap + 2


def load_graph_dataset(name: str, data_dir: str | os.PathLike[str] | None = None) -> GraphDataset:
    """Load ``name`` (one of :data:`DATASETS`) with the features described in the module doc."""
    if name not in DATASETS:
        raise ValueError(f"unknown data set {name!r}; choose from {', '.join(DATASETS)}")
    root = data_root(data_dir)
    info: dict[str, object] = {}
    if name in FROM_S2V:
        zip_path = root / "tu_s2v" / f"{name}.zip"
        s2v = read_s2v_zip(zip_path, name, cache_dir=cache_dir("tu_s2v"))
        graphs = s2v.to_data_list()
        for g in graphs:
            del g.node_tag  # all zero: no node labels in COLLAB
        info["source"] = f"tu_s2v/{name}.zip (S2V format, own loader)"
    else:
        ds = TUDataset(str(_tu_root(root, name)), name)
        graphs = [ds[i] for i in range(len(ds))]
        info["source"] = f"tu/{name}/raw (PyG TUDataset)"
    for g in graphs:
        g.edge_attr = None
    num_classes = int(torch.cat([g.y.view(-1) for g in graphs]).max()) + 1
    if name in ("MUTAG", "PROTEINS"):
        num_features = int(graphs[0].x.size(-1))
        desc = f"one-hot discrete node labels ({num_features})"
    elif name in CAPPED:
        num_features = capped_degree_features(graphs)
        desc = (
            f"one-hot degree capped at {DEGREE_CAP} ({DEGREE_CAP + 1} bins) "
            f"+ log(1+deg)/log(1+max_deg) ({num_features})"
        )
    else:
        max_deg = max(int(_degrees(g).max()) for g in graphs)
        transform = OneHotDegree(max_deg)
        graphs = [transform(g) for g in graphs]
        num_features = max_deg + 1
        desc = f"PyG OneHotDegree(max_degree={max_deg}) ({num_features})"
    info["num_graphs"] = len(graphs)
    info["num_nodes"] = int(sum(g.num_nodes for g in graphs))
    info["num_directed_edges"] = int(sum(g.edge_index.size(1) for g in graphs))
    return GraphDataset(name, graphs, num_features, num_classes, desc, info)

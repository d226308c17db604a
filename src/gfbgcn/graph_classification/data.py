"""Graph-classification data sets with the node features of the paper's protocol.

"We only make use of discrete node features.  In case they are not given, we use one-hot
encodings of node degrees as feature input." (supplement, section "Graph Classification").

| data set      | source                                     | node features ``x``              |
|---------------|--------------------------------------------|----------------------------------|
| MUTAG         | ``tu/MUTAG/raw`` via PyG ``TUDataset``     | one-hot node label (7)           |
| PROTEINS      | ``tu/PROTEINS/raw`` via ``TUDataset``      | one-hot node label (3)           |
| IMDB-BINARY   | ``tu/IMDB-BINARY/raw`` via ``TUDataset``   | ``OneHotDegree(max_degree=135)`` |
| REDDIT-BINARY | ``tu/REDDIT-BINARY/raw`` via ``TUDataset`` | capped one-hot degree + log (66) |
| COLLAB        | ``tu_s2v/COLLAB.zip`` via :mod:`.s2v`      | capped one-hot degree + log (66) |

"Capped" (REDDIT-BINARY max degree 3,062; COLLAB 491): ``one_hot(min(deg, 64), 65)`` followed
by one column ``log(1 + deg) / log(1 + max_deg)`` (max over the whole data set), so nodes of
degree >= 64 share the last bin but stay distinguishable by the last column.

Any other data set in the TU format under ``<data root>/tu/<NAME>/raw/`` (or an S2V zip
``tu_s2v/<NAME>.zip``) loads by the same rules: its discrete node labels where it has them,
else the one-hot degree, capped as above when the maximum degree exceeds 256.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

import torch
from torch import Tensor
from torch_geometric.data import Data
from torch_geometric.datasets import TUDataset
from torch_geometric.transforms import OneHotDegree
from torch_geometric.utils import degree

from gfbgcn.core.errors import DatasetUnavailableError
from gfbgcn.core.paths import cache_dir, data_root
from gfbgcn.graph_classification.s2v import read_s2v_zip

#: The paper's data sets (the defaults); any other TU-format data set loads the same way.
DATASETS: tuple[str, ...] = ("MUTAG", "PROTEINS", "IMDB-BINARY", "REDDIT-BINARY", "COLLAB")
#: Above this maximum degree a one-hot degree would be too wide: it is capped at
#: :data:`DEGREE_CAP` and a normalised log-degree column is added (REDDIT-BINARY, COLLAB).
ONE_HOT_DEGREE_MAX: int = 256
DEGREE_CAP: int = 64


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
    # PyG reuses <root>/<name>/processed/ whenever it exists, whatever raw files it was made
    # from: key the root by the raw files (place, names, sizes, times) so that another data root
    # or an edited data set is processed again instead of silently read from a stale cache
    stamp = hashlib.sha256(repr((str(src.resolve()), sorted(
        (p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in src.iterdir() if p.is_file()
    ))).encode()).hexdigest()[:16]
    tu_root = cache_dir(f"tu/{stamp}")
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


def find_graph_data(name: str, root: Path) -> tuple[str, Path]:
    """``("tu", raw dir)`` or ``("s2v", zip)`` for data set ``name`` under the data root.

    TU raw files (``tu/<NAME>/raw/<NAME>_A.txt`` ...) are preferred; an S2V zip
    (``tu_s2v/<NAME>.zip``) is read where there are none (COLLAB).
    """
    tu_raw = root / "tu" / name / "raw"
    s2v = root / "tu_s2v" / f"{name}.zip"
    if (tu_raw / f"{name}_A.txt").is_file():
        return "tu", tu_raw
    if s2v.is_file():
        return "s2v", s2v
    raise DatasetUnavailableError(
        f"graph data set {name!r} not found under the data root {root}: expected the TU files "
        f"tu/{name}/raw/{name}_A.txt, {name}_graph_indicator.txt and {name}_graph_labels.txt "
        f"(https://chrsmrrs.github.io/datasets/), or an S2V zip tu_s2v/{name}.zip"
    )


def _read_graphs(name: str, root: Path) -> tuple[list[Data], str]:
    kind, path = find_graph_data(name, root)
    if kind == "s2v":
        graphs = read_s2v_zip(path, name, cache_dir=cache_dir("tu_s2v")).to_data_list()
        for g in graphs:
            tags = g.node_tag
            del g.node_tag
            if tags.numel() and int(tags.max()) > 0:  # S2V node tags are discrete node labels
                g.node_tag = tags
        return graphs, f"tu_s2v/{name}.zip (S2V format, own loader)"
    ds = TUDataset(str(_tu_root(root, name)), name)
    return [ds[i] for i in range(len(ds))], f"tu/{name}/raw (PyG TUDataset)"


def _node_features(graphs: list[Data]) -> tuple[list[Data], int, str]:
    """The protocol's discrete node features: node labels where the data has them, else a
    one-hot degree (capped, plus a log-degree column, where degrees exceed
    :data:`ONE_HOT_DEGREE_MAX`)."""
    if all(getattr(g, "x", None) is not None for g in graphs):
        num_features = int(graphs[0].x.size(-1))
        return graphs, num_features, f"one-hot discrete node labels ({num_features})"
    if all(getattr(g, "node_tag", None) is not None for g in graphs):
        width = int(max(int(g.node_tag.max()) for g in graphs)) + 1
        for g in graphs:
            g.x = torch.nn.functional.one_hot(g.node_tag, width).float()
            del g.node_tag
        return graphs, width, f"one-hot S2V node tags ({width})"
    max_deg = max(int(_degrees(g).max()) if g.num_nodes else 0 for g in graphs)
    if max_deg > ONE_HOT_DEGREE_MAX:
        num_features = capped_degree_features(graphs)
        return graphs, num_features, (
            f"one-hot degree capped at {DEGREE_CAP} ({DEGREE_CAP + 1} bins) "
            f"+ log(1+deg)/log(1+max_deg) ({num_features})")
    transform = OneHotDegree(max_deg)
    return ([transform(g) for g in graphs], max_deg + 1,
            f"PyG OneHotDegree(max_degree={max_deg}) ({max_deg + 1})")


def load_graph_dataset(name: str, data_dir: str | os.PathLike[str] | None = None) -> GraphDataset:
    """Load ``name`` (any TU-format data set under the data root; see the module doc)."""
    root = data_root(data_dir)
    graphs, source = _read_graphs(name, root)
    for g in graphs:
        g.edge_attr = None
    num_classes = int(torch.cat([g.y.view(-1) for g in graphs]).max()) + 1
    graphs, num_features, desc = _node_features(graphs)
    info: dict[str, object] = {
        "source": source,
        "num_graphs": len(graphs),
        "num_nodes": int(sum(g.num_nodes for g in graphs)),
        "num_directed_edges": int(sum(g.edge_index.size(1) for g in graphs)),
    }
    return GraphDataset(name, graphs, num_features, num_classes, desc, info)

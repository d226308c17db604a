"""Graph data sets in the TU format: node-label or one-hot degree features, a data set written
here (any TU data set loads), errors naming the expected files, and MUTAG from the data root."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from torch_geometric.data import Data

from gfbgcn.core.errors import DatasetUnavailableError
from gfbgcn.graph_classification.data import (
    DATASETS,
    DEGREE_CAP,
    capped_degree_features,
    find_graph_data,
    load_graph_dataset,
)

from .toydata import TOY, write_tu


def _degrees(n: int, pairs: list[tuple[int, int]]) -> list[int]:
    deg = [0] * n
    for a, b in pairs:
        deg[a] += 1
        deg[b] += 1
    return deg


def test_tu_data_set_with_node_labels_gets_one_hot_labels(tmp_path: Path) -> None:
    write_tu(tmp_path / "data")
    ds = load_graph_dataset("TOY", tmp_path / "data")
    assert (ds.name, len(ds.graphs), ds.num_features, ds.num_classes) == ("TOY", 5, 3, 2)
    assert ds.feature_desc == "one-hot discrete node labels (3)"
    assert ds.y.tolist() == [1, 0, 1, 0, 1]  # -1 -> 0, 1 -> 1
    for g, (n, pairs, _, tags) in zip(ds.graphs, TOY, strict=True):
        assert g.num_nodes == n and g.x.dtype == torch.float32
        assert g.x.tolist() == torch.nn.functional.one_hot(torch.tensor(tags), 3).tolist()
        assert g.edge_index.size(1) == 2 * len(pairs) and g.edge_attr is None
    assert ds.info == {"source": "tu/TOY/raw (PyG TUDataset)", "num_graphs": 5, "num_nodes": 14,
                       "num_directed_edges": 20}


def test_tu_data_set_without_node_labels_gets_one_hot_degree(tmp_path: Path) -> None:
    write_tu(tmp_path / "data", node_labels=False)
    ds = load_graph_dataset("TOY", tmp_path / "data")
    assert ds.num_features == 4 and ds.num_classes == 2  # degrees 0..3
    assert ds.feature_desc == "PyG OneHotDegree(max_degree=3) (4)"
    for g, (n, pairs, _, _) in zip(ds.graphs, TOY, strict=True):
        assert g.x.tolist() == torch.nn.functional.one_hot(
            torch.tensor(_degrees(n, pairs)), 4).float().tolist()


def test_same_name_elsewhere_or_edited_is_read_again(tmp_path: Path) -> None:
    """PyG keeps its processed files in the cache: they must follow the raw files."""
    write_tu(tmp_path / "a")
    write_tu(tmp_path / "b", node_labels=False)
    assert load_graph_dataset("TOY", tmp_path / "a").num_features == 3
    assert load_graph_dataset("TOY", tmp_path / "b").num_features == 4
    assert load_graph_dataset("TOY", tmp_path / "a").num_features == 3
    (tmp_path / "a" / "tu" / "TOY" / "raw" / "TOY_node_labels.txt").unlink()
    assert load_graph_dataset("TOY", tmp_path / "a").num_features == 4


def test_missing_data_set_names_the_expected_files(tmp_path: Path) -> None:
    with pytest.raises(DatasetUnavailableError) as info:
        load_graph_dataset("NOPE", tmp_path)
    message = str(info.value)
    for expected in ("tu/NOPE/raw/NOPE_A.txt", "NOPE_graph_indicator.txt",
                     "NOPE_graph_labels.txt", "tu_s2v/NOPE.zip", str(tmp_path)):
        assert expected in message


def test_find_graph_data_prefers_tu_files(tmp_path: Path) -> None:
    raw = write_tu(tmp_path)
    (tmp_path / "tu_s2v").mkdir()
    (tmp_path / "tu_s2v" / "TOY.zip").write_bytes(b"")
    (tmp_path / "tu_s2v" / "OTHER.zip").write_bytes(b"")
    assert find_graph_data("TOY", tmp_path) == ("tu", raw)
    assert find_graph_data("OTHER", tmp_path) == ("s2v", tmp_path / "tu_s2v" / "OTHER.zip")
    assert "MUTAG" in DATASETS and "COLLAB" in DATASETS


def test_capped_degree_features() -> None:
    star = Data(edge_index=torch.tensor([[0] * 99 + list(range(1, 100)),
                                         list(range(1, 100)) + [0] * 99]), num_nodes=100)
    lone = Data(edge_index=torch.empty(2, 0, dtype=torch.long), num_nodes=1)
    width = capped_degree_features([star, lone])
    assert width == DEGREE_CAP + 2 and star.x.shape == (100, width)
    assert star.x[0, DEGREE_CAP] == 1 and star.x[0, -1] == pytest.approx(1.0)  # 99 >= cap
    assert star.x[1, 1] == 1 and star.x[1, -1] == pytest.approx(
        torch.log1p(torch.tensor(1.0)) / torch.log1p(torch.tensor(99.0)))
    assert lone.x.tolist() == [[1.0] + [0.0] * (width - 1)]


@pytest.mark.realdata
def test_mutag_from_the_data_root(data_dir: Path) -> None:
    ds = load_graph_dataset("MUTAG", data_dir)
    assert (ds.num_features, ds.num_classes, len(ds.graphs)) == (7, 2, 188)
    assert ds.feature_desc == "one-hot discrete node labels (7)"
    assert ds.y.bincount().tolist() == [63, 125]

"""The S2V zip reader: a hand-written file, malformed files, and REDDIT-BINARY vs TUDataset."""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch
from torch_geometric.datasets import TUDataset

from gfbgcn.graph_classification.s2v import S2VFormatError, parse_s2v_bytes, read_s2v_zip

# 3 graphs; labels 5/7/5 -> y 0/1/0.  Graph 1 has a self loop (0-0) and a duplicate (1 2 2).
SMALL = b"""3
3 5
0 2 1 2
1 1 0
0 1 0
2 7
0 3 0 1 1
0 1 0
1 5
4 0
"""


def _zip(path: Path, name: str, text: bytes) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(f"{name}/", b"")
        zf.writestr(f"{name}/.DS_Store", b"\x00junk")
        zf.writestr(f"__MACOSX/{name}/._{name}.txt", b"\x00\x05junk")
        zf.writestr(f"{name}/{name}.txt", text)
        zf.writestr(f"{name}/10fold_idx/train_idx-1.txt", b"0\n1\n")
    return path


def test_small_file_parsed_exactly(tmp_path: Path) -> None:
    g = read_s2v_zip(_zip(tmp_path / "T.zip", "T", SMALL), "T", cache_dir=tmp_path / "c")
    assert len(g) == 3
    assert g.num_nodes.tolist() == [3, 2, 1]
    assert g.raw_label.tolist() == [5, 7, 5]
    assert g.y.tolist() == [0, 1, 0]
    assert g.node_tag.tolist() == [0, 1, 0, 0, 0, 4]
    graphs = g.to_data_list()
    assert graphs[0].edge_index.tolist() == [[0, 0, 1, 2], [1, 2, 0, 0]]
    # self loop removed, duplicate 0->1 coalesced
    assert graphs[1].edge_index.tolist() == [[0, 1], [1, 0]]
    assert graphs[2].edge_index.numel() == 0 and graphs[2].num_nodes == 1
    # the cache is read back (weights_only) and equal
    cached = read_s2v_zip(tmp_path / "T.zip", "T", cache_dir=tmp_path / "c")
    assert list((tmp_path / "c").glob("*.pt"))
    for k, v in g.to_dict().items():
        assert torch.equal(v, getattr(cached, k)), k


@pytest.mark.parametrize(
    "text",
    [
        b"2\n1 0\n0 0\n",  # fewer graphs than announced
        b"1\n2 0\n0 1 1\n0 1 5\n",  # neighbour 5 out of range
        b"1\n1 0\n0 2 0\n",  # m=2 but no neighbours listed
        b"1\n1 0\n0 0\n0 0\n",  # trailing line
    ],
)
def test_malformed_files_rejected(text: bytes) -> None:
    with pytest.raises(S2VFormatError):  # bad input data: a user error, not a bug
        parse_s2v_bytes(text)


def _tu_subset(src: Path, dst: Path, name: str, keep: np.ndarray) -> None:
    """Write TU raw files holding only the graphs ``keep`` (0-based, ascending), renumbered."""
    dst.mkdir(parents=True)
    ind = pd.read_csv(src / f"{name}_graph_indicator.txt", header=None).to_numpy()[:, 0] - 1
    labels = pd.read_csv(src / f"{name}_graph_labels.txt", header=None).to_numpy()[:, 0]
    adj = pd.read_csv(src / f"{name}_A.txt", header=None).to_numpy() - 1
    node_kept = np.isin(ind, keep)
    new_id = np.cumsum(node_kept) - 1  # old node id -> new node id (where kept)
    new_graph = np.searchsorted(keep, ind[node_kept])
    np.savetxt(dst / f"{name}_graph_indicator.txt", new_graph + 1, fmt="%d")
    np.savetxt(dst / f"{name}_graph_labels.txt", labels[keep], fmt="%d")
    a = adj[node_kept[adj[:, 0]]]
    np.savetxt(dst / f"{name}_A.txt", new_id[a] + 1, fmt="%d", delimiter=", ")


@pytest.mark.realdata
def test_reddit_binary_s2v_equals_tudataset(data_dir: Path, tmp_path: Path) -> None:
    """Same edge_index, y and num_nodes as PyG's TUDataset on the TU files (90 graphs from
    three label blocks: the TU file holds labels 1, -1, 1 in blocks of 500, 1000, 500), and the
    whole file matches the TU statistics."""
    name = "REDDIT-BINARY"
    s2v = read_s2v_zip(data_dir / "tu_s2v" / f"{name}.zip", name)
    assert len(s2v) == 2000
    assert int(s2v.num_nodes.sum()) == 859_254
    assert s2v.edge_index.size(1) == 1_991_016
    assert s2v.y.bincount().tolist() == [1000, 1000]
    assert s2v.raw_label.unique().tolist() == [0, 2]  # DGCNN's label - min(label) of -1/1
    keep = np.r_[0:30, 700:730, 1970:2000]
    _tu_subset(data_dir / "tu" / name / "raw", tmp_path / name / "raw", name, keep)
    tu = TUDataset(str(tmp_path), name)
    all_graphs = s2v.to_data_list()
    ours = [all_graphs[i] for i in keep]
    assert len(tu) == len(ours)
    ys = tu.y.view(-1)
    assert ys.unique().numel() == 2  # both classes occur, so the label mapping is tested
    for i, (a, b) in enumerate(zip(ours, tu)):
        assert a.num_nodes == b.num_nodes, i
        assert torch.equal(a.edge_index, b.edge_index), i
        assert torch.equal(a.y, b.y), i


def test_a_malformed_archive_is_named_in_the_error(tmp_path) -> None:
    bad = _zip(tmp_path / "T.zip", "T", b"1\n1 0\n0 0\n0 0\n")
    with pytest.raises(S2VFormatError, match=r"T\.zip: 1 trailing lines"):
        read_s2v_zip(bad, "T")
    (tmp_path / "N.zip").write_bytes(b"not a zip")
    with pytest.raises(S2VFormatError, match=r"N\.zip: "):
        read_s2v_zip(tmp_path / "N.zip", "N")

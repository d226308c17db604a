"""``TextGraphDataset``: a benchmark's graph as a PyG ``InMemoryDataset``, read from the data
root, processed once per setting, equal to ``build_graph``'s; a stock ``GCNConv`` on its
``adj_t`` computes what it computes on ``edge_index``."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
import torch_geometric.transforms as T
from torch_geometric.nn import GCNConv

from gfbgcn import TextGraphDataset, build_graph
from gfbgcn.core.errors import DatasetUnavailableError, OptionError
from gfbgcn.text.corpus.benchmarks import load_benchmark
from gfbgcn.text.dataset import text_graph_dataset

LINES = {
    "train": ["earn\tnet profit rose on higher sales of shares",
              "earn\tquarterly profit and dividend up on sales",
              "acq\tthe company agreed to buy the bank for shares",
              "acq\tmerger talks to acquire the bank ended",
              "earn\tprofit rose and the dividend was raised",
              "acq\tbid to buy the company for cash and shares"],
    "test": ["earn\tsales and profit fell", "acq\tthe bank will buy the company"],
}


@pytest.fixture()
def data_root(tmp_path: Path) -> Path:
    """A data root holding a tiny stand-in for R8's two files."""
    folder = tmp_path / "data" / "text" / "r8"
    folder.mkdir(parents=True)
    for part, lines in LINES.items():
        (folder / f"r8-{part}-all-terms.txt").write_text("\n".join(lines) + "\n")
    return tmp_path / "data"


def _dataset(tmp_path: Path, data_root: Path, **kwargs) -> TextGraphDataset:
    return TextGraphDataset(tmp_path / "pyg", "R8", data_dir=data_root, min_freq=1, log=False,
                            **kwargs)


def test_the_dataset_is_build_graphs_graph(tmp_path, data_root):
    dataset = _dataset(tmp_path, data_root)
    graph = build_graph(load_benchmark("r8", data_root), min_freq=1)
    data, expected = dataset[0], graph.to_pyg()
    assert len(dataset) == 1 and dataset.num_classes == 2 and repr(dataset) == \
        "TextGraphDataset(r8)"
    for name in ("edge_index", "edge_weight", "y", "train_mask", "val_mask", "test_mask"):
        assert torch.equal(getattr(data, name), getattr(expected, name)), name
    assert data.num_docs == 8 and data.num_nodes == graph.num_nodes
    assert dataset.label_names == data.label_names == ["acq", "earn"]
    assert data.vocab == graph.vocab
    processed = list((tmp_path / "pyg" / "r8" / "processed").glob("graph-*.pt"))
    assert [p.name for p in processed] == [f"graph-{dataset.settings_digest()}.pt"]


def test_processed_once_per_setting(tmp_path, data_root, monkeypatch):
    _dataset(tmp_path, data_root)

    def no_build(*args, **kwargs):
        raise AssertionError("processed again")

    monkeypatch.setattr(text_graph_dataset, "build_graph", no_build)
    again = _dataset(tmp_path, data_root)  # read back, not processed
    assert again[0].num_docs == 8
    monkeypatch.undo()
    other = _dataset(tmp_path, data_root, random_state=3)  # another split: its own file
    assert other.settings_digest() != again.settings_digest()
    assert not torch.equal(other[0].val_mask, again[0].val_mask) or \
        other[0].val_mask.sum() <= 1  # (a 6-document split may draw the same one)
    (data_root / "text" / "r8" / "r8-test-all-terms.txt").write_text(
        "earn\tprofit and sales\n")  # a changed raw file is processed anew
    assert _dataset(tmp_path, data_root)[0].num_docs == 7


def test_gcnconv_on_adj_t_equals_gcnconv_on_edge_index(tmp_path, data_root):
    """The docstring's ``transform=T.ToSparseTensor(attr="edge_weight")``: ``adj_t`` holds the
    edge weights, and a stock cached ``GCNConv`` gives what it gives on the edge arrays."""
    sparse = _dataset(tmp_path, data_root, transform=T.ToSparseTensor(attr="edge_weight"))[0]
    plain = _dataset(tmp_path, data_root)[0]
    assert sparse.adj_t.layout == torch.sparse_csr and "edge_index" not in sparse
    torch.manual_seed(0)
    conv = GCNConv(4, 3, cached=True)
    x = torch.randn(plain.num_nodes, 4)
    expected = conv(x, plain.edge_index, plain.edge_weight)
    conv.reset_parameters()  # (drops the cached normalisation)
    torch.manual_seed(0)
    conv = GCNConv(4, 3, cached=True)
    torch.testing.assert_close(conv(x, sparse.adj_t), expected)


def test_bad_names_and_settings_fail_in_one_line(tmp_path, data_root):
    with pytest.raises(OptionError, match="unknown text benchmark 'MR'; choose one of 20ng"):
        TextGraphDataset(tmp_path, "MR")
    with pytest.raises(OptionError, match="random_state of a dataset must be a whole number"):
        _dataset(tmp_path, data_root, random_state=None)
    with pytest.raises(OptionError, match="^window must be"):
        _dataset(tmp_path, data_root, window=0)
    with pytest.raises(DatasetUnavailableError, match="ohsumed"):  # no download source
        TextGraphDataset(tmp_path / "pyg", "ohsumed", data_dir=tmp_path / "empty", log=False)


@pytest.mark.realdata
def test_r8_as_a_pyg_user_writes_it(tmp_path, data_dir):
    dataset = TextGraphDataset(tmp_path, "R8", data_dir=data_dir, log=False)
    data = dataset[0]
    assert dataset.num_classes == 8 and data.num_nodes == 15362
    assert int(data.train_mask.sum() + data.val_mask.sum()) == 5485
    assert dataset.label_names[:2] == ["acq", "crude"]


@pytest.mark.realdata
def test_the_docstring_examples_run(tmp_path, data_dir, monkeypatch):
    """``TextGraphDataset``'s and ``build_graph``'s examples, as written (R8)."""
    from gfbgcn.text.dataset.build_graph import build_graph as build
    from tests.text.graph.test_text_graph import docstring_code

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GFBGCN_DATA", str(data_dir))
    namespace: dict = {}
    exec(docstring_code(TextGraphDataset), namespace)  # noqa: S102 - our own text
    assert namespace["data"].adj_t.layout == torch.sparse_csr
    assert namespace["dataset"].num_classes == 8
    exec(docstring_code(build), namespace)  # noqa: S102
    assert namespace["data"].num_nodes == 15362 and namespace["graph"].num_docs == 2

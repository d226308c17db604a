"""CV folds of the protocol, model selection, and a short MUTAG run."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from torch_geometric.data import Batch, Data
from torch_geometric.nn import global_mean_pool

from gfbgcn.graphcls.batching import GraphBatcher
from gfbgcn.graphcls.models import GraphClassifier, make_conv
from gfbgcn.graphcls.protocol import TrainConfig, make_splits, select_per_fold, train_one


def test_splits_stratified_disjoint_covering() -> None:
    rng = np.random.default_rng(0)
    y = rng.choice(3, size=203, p=[0.6, 0.3, 0.1])
    splits = make_splits(y, folds=10, seed=3)
    assert [s.fold for s in splits] == list(range(10))
    all_test = np.concatenate([s.test for s in splits])
    assert np.array_equal(np.sort(all_test), np.arange(len(y)))  # test folds partition
    counts = np.bincount(y, minlength=3)
    test_sets = [set(s.test.tolist()) for s in splits]
    for s in splits:
        parts = [set(s.train.tolist()), set(s.val.tolist()), set(s.test.tolist())]
        assert sum(map(len, parts)) == len(y)
        assert set.union(*parts) == set(range(len(y)))  # disjoint and covering
        assert set(s.val.tolist()) in test_sets and set(s.val.tolist()) != parts[2]
        for part in (s.test, s.val):  # stratified: each class within one of its share
            per_class = np.bincount(y[part], minlength=3)
            assert np.all(np.abs(per_class - counts / 10) <= 1)
    again = make_splits(y, folds=10, seed=3)
    assert all(np.array_equal(a.val, b.val) for a, b in zip(splits, again))
    other = make_splits(y, folds=10, seed=4)
    assert any(not np.array_equal(a.test, b.test) for a, b in zip(splits, other))


def test_select_per_fold_uses_validation_only() -> None:
    def rec(fold: int, hidden: int, val_acc: float, val_loss: float, test_acc: float) -> dict:
        key = {"fold": fold, "hidden": hidden, "layers": 1}
        return {"key": key, "val_acc": val_acc, "val_loss": val_loss, "test_acc": test_acc}

    recs = [
        rec(0, 16, 0.8, 0.5, 0.1),
        rec(0, 32, 0.7, 0.1, 0.99),  # better test, worse validation: must not be chosen
        rec(1, 16, 0.6, 0.4, 0.2),
        rec(1, 32, 0.6, 0.3, 0.3),  # tie on accuracy, lower loss wins
    ]
    sel = select_per_fold(recs)
    assert sel[0]["key"]["hidden"] == 16 and sel[1]["key"]["hidden"] == 32


@pytest.mark.realdata
@pytest.mark.parametrize("model", ["gcn", "gfb-sage"])
def test_short_mutag_run_beats_majority(data_dir: Path, model: str) -> None:
    from gfbgcn.graphcls.data import load_graph_dataset

    ds = load_graph_dataset("MUTAG", data_dir)
    assert (ds.num_features, ds.num_classes, len(ds.graphs)) == (7, 2, 188)
    y = ds.y.numpy()
    split = make_splits(y, folds=10, seed=0)[0]
    majority = np.bincount(y[split.test]).max() / len(split.test)
    cfg = TrainConfig(epochs=40, patience=40, batch_size=32)
    rec = train_one(model, ds.graphs, split, ds.num_features, ds.num_classes, 32, 2, cfg, 0)
    assert rec["test_acc"] > majority, (rec, majority)
    assert rec["val_acc"] > np.bincount(y[split.val]).max() / len(split.val) - 1e-9


@pytest.mark.parametrize("model", ["gcn", "sage", "gfb-gcn", "gfb-sage"])
def test_classifier_shapes_and_diagvec(model: str) -> None:
    import torch

    from gfbgcn.graphcls.models import GraphClassifier

    net = GraphClassifier(model, in_channels=4, hidden=8, layers=3, num_classes=3)
    assert len(net.convs) == 3
    if model.startswith("gfb"):
        assert all(conv.summarize == "diag" for conv in net.convs)  # the paper's DiagVec
    x = torch.randn(7, 4)
    edge_index = torch.tensor([[0, 1, 1, 2, 4, 5, 5, 6], [1, 0, 2, 1, 5, 4, 6, 5]])
    batch = torch.tensor([0, 0, 0, 0, 1, 1, 1])
    out = net(x, edge_index, batch)
    assert out.shape == (2, 3)
    out.sum().backward()
    assert all(p.grad is not None for p in net.parameters())


# --- vectorised batching and shared normalisation --------------------------------------------


def _random_graphs(n: int, seed: int = 0) -> list:
    g = torch.Generator().manual_seed(seed)
    out = []
    for i in range(n):
        nodes = int(torch.randint(1, 9, (1,), generator=g))
        edges = int(torch.randint(0, 3 * nodes, (1,), generator=g))
        ei = torch.randint(0, nodes, (2, edges), generator=g)
        x = torch.randn(nodes, 3, generator=g)
        out.append(Data(x=x, edge_index=ei, y=torch.tensor([i % 3])))
    return out


def test_graph_batcher_equals_pyg_collation():
    graphs = _random_graphs(40)
    batcher = GraphBatcher(graphs)
    ids = [17, 3, 39, 0, 22, 22, 5]
    ours = batcher.batch(ids)
    ref = Batch.from_data_list([graphs[i] for i in ids])
    assert torch.equal(ours.x, ref.x)
    assert torch.equal(ours.edge_index, ref.edge_index)
    assert torch.equal(ours.batch, ref.batch)
    assert torch.equal(ours.y, ref.y.view(-1))


def test_shuffled_batches_cover_ids_once_and_follow_the_generator():
    graphs = _random_graphs(30)
    batcher = GraphBatcher(graphs)
    ids = torch.tensor([1, 4, 5, 8, 9, 12, 13, 20, 21, 29])
    gen = torch.Generator().manual_seed(7)
    epoch1 = list(batcher.shuffled_batches(ids, 4, gen))
    epoch2 = list(batcher.shuffled_batches(ids, 4, gen))
    assert [b.y.numel() for b in epoch1] == [4, 4, 2]
    # each batch is exactly the collation of its graphs; the graphs are ids, each once
    x_rows = {tuple(graphs[i].x[0].tolist()): i for i in ids.tolist()}
    seen = [x_rows[tuple(b.x[b.batch == j][0].tolist())] for b in epoch1 for j in range(b.y.numel())]
    assert sorted(seen) == ids.tolist()
    assert seen != ids.tolist()
    replay = list(batcher.shuffled_batches(ids, 4, torch.Generator().manual_seed(7)))
    assert all(torch.equal(a.x, b.x) for a, b in zip(epoch1, replay, strict=True))
    assert not all(torch.equal(a.x, b.x) for a, b in zip(epoch1, epoch2, strict=True))


def _reference_conv(model: str, fan_in: int, fan_out: int) -> torch.nn.Module:
    """The per-layer PyG form: each layer normalises / averages on its own edge_index."""
    from torch_geometric.nn import GCNConv, SAGEConv

    from gfbgcn.nn import GFBConv, GFBSAGEConv

    return {
        "gcn": lambda: GCNConv(fan_in, fan_out),
        "sage": lambda: SAGEConv(fan_in, fan_out),
        "gfb-gcn": lambda: GFBConv(fan_in, fan_out, summarize="diag"),
        "gfb-sage": lambda: GFBSAGEConv(fan_in, fan_out, summarize="diag"),
    }[model]()


@pytest.mark.parametrize("multigraph", [False, True])
@pytest.mark.parametrize("undirected", [False, True])
@pytest.mark.parametrize("model", ["gcn", "sage", "gfb-gcn", "gfb-sage"])
def test_shared_sparse_adjacency_equals_per_layer_pyg_convs(
    model: str, undirected: bool, multigraph: bool
):
    from torch_geometric.utils import coalesce, to_undirected

    graphs = _random_graphs(6)
    for g in graphs:
        if undirected:
            g.edge_index = to_undirected(g.edge_index, num_nodes=g.num_nodes)
        if not multigraph:
            g.edge_index = coalesce(g.edge_index, num_nodes=g.num_nodes)
        else:  # every graph's first edge (both directions if undirected) twice
            extra = g.edge_index[:, :1]
            extra = torch.cat([extra, extra.flip(0)], dim=1) if undirected else extra
            g.edge_index = torch.cat([g.edge_index, extra], dim=1)
    b = Batch.from_data_list(graphs)
    assert GraphBatcher(graphs).undirected == undirected
    torch.manual_seed(0)
    net = GraphClassifier(model, 3, 8, 3, 3).eval()
    adj = net.adjacency(b.edge_index, b.num_nodes, torch.float32, undirected)
    # the SAGE families fall back to edge_index only for multigraphs (mean counts copies)
    assert (adj.layout == torch.sparse_csr) == (model in ("gcn", "gfb-gcn") or not multigraph)
    per_layer = [_reference_conv(model, 3 if i == 0 else 8, 8) for i in range(3)]
    for own, ref in zip(net.convs, per_layer, strict=True):
        ref.load_state_dict(own.state_dict())
    x = b.x.clone().requires_grad_()
    h = x
    for conv in per_layer:
        h = torch.relu(conv(h, b.edge_index))
    expected = net.lin2(torch.relu(net.lin1(global_mean_pool(h, b.batch))))
    (grad_expected,) = torch.autograd.grad(expected.square().sum(), x)
    got = net(x, b.edge_index, b.batch, undirected)
    (grad_got,) = torch.autograd.grad(got.square().sum(), x)
    torch.testing.assert_close(got, expected)
    torch.testing.assert_close(grad_got, grad_expected)


def test_report_counts_only_folds_with_every_configuration():
    from gfbgcn.graphcls.report import complete_folds

    def rec(fold, hidden, layers):
        return {"key": {"fold": fold, "hidden": hidden, "layers": layers}}

    records = [rec(0, 16, 1), rec(0, 16, 2), rec(1, 16, 1), rec(1, 16, 2), rec(2, 16, 1)]
    kept = complete_folds(records)
    assert sorted({r["key"]["fold"] for r in kept}) == [0, 1]
    assert len(kept) == 4


def test_report_cell_marks_partial_folds_and_reduced_grids():
    from gfbgcn.graphcls.report import _fmt

    assert _fmt(70.0, 2.0, 10, 10) == "70.0 ± 2.0"
    assert _fmt(70.0, 2.0, 7, 10) == "70.0 ± 2.0 (7/10 folds)"
    assert _fmt(70.0, 2.0, 10, 10, configs=1) == "70.0 ± 2.0 (1 of 20 configs)"
    assert _fmt(70.0, 2.0, 0, 10, configs=0) == "not run"

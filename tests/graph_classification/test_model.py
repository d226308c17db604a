"""The graph classifiers by name: structure, and the shared adjacency equal to PyG's per-layer
convolutions (values and gradients)."""

from __future__ import annotations

import pytest
import torch
from torch_geometric.data import Batch
from torch_geometric.nn import SAGEConv, global_add_pool, global_mean_pool

from gfbgcn.graph_classification.batching import GraphBatcher
from gfbgcn.graph_classification.model import (
    MODEL_LABELS,
    MODELS,
    build_classifier,
    count_parameters,
    make_conv,
)
from gfbgcn.nn import CachedTransposeGCNConv, GFBConv, GFBSAGEConv
from tests.graph_classification.toydata import random_graphs


@pytest.mark.parametrize("model", ["gcn", "sage", "gfb-gcn", "gfb-sage"])
def test_classifier_shapes_and_diagvec(model: str) -> None:
    net = build_classifier(model, in_channels=4, hidden=8, layers=3, num_classes=3)
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


def test_families_and_their_adjacency():
    assert MODELS == ("gcn", "sage", "gfb-gcn", "gfb-sage") and set(MODEL_LABELS) == set(MODELS)
    expected = {"gcn": (CachedTransposeGCNConv, "gcn"), "sage": (SAGEConv, "binary"),
                "gfb-gcn": (GFBConv, "gcn"), "gfb-sage": (GFBSAGEConv, "binary")}
    for model, (cls, kind) in expected.items():
        net = build_classifier(model, 5, 8, 2, 3)
        assert all(type(conv) is cls for conv in net.convs) and net.adjacency_kind == kind
        if kind == "gcn":  # normalised once per forward, not again in every layer
            assert all(conv.normalize is False for conv in net.convs)
    assert make_conv("gcn", 5, 8).normalize is True
    assert count_parameters(build_classifier("gfb-gcn", 5, 8, 2, 3)) == \
        count_parameters(build_classifier("gcn", 5, 8, 2, 3)) + 2  # one lambda per layer
    with pytest.raises(ValueError, match="unknown model"):
        make_conv("gat", 5, 8)
    with pytest.raises(ValueError, match="layers"):
        build_classifier("gcn", 5, 8, 0, 3)


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

    graphs = random_graphs(6)
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
    net = build_classifier(model, 3, 8, 3, 3).eval()
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


def test_conv_options_reach_every_gfb_layer_and_sum_readout_sums() -> None:
    net = build_classifier("gfb-gcn", 2, 4, 3, 2, conv_options={"summarize": "max",
                                                              "lambda_init": 0.0},
                           readout="sum")
    assert all(c.summarize == "max" and float(c.lam) == 0.0 for c in net.convs)
    x = torch.randn(5, 2)
    ei = torch.tensor([[0, 1, 3, 4], [1, 0, 4, 3]])
    batch = torch.tensor([0, 0, 0, 1, 1])
    net.eval()
    h = x
    adj = net.adjacency(ei, 5, x.dtype)
    for conv in net.convs:
        h = torch.relu(conv(h, adj))
    g = global_add_pool(h, batch)
    want = net.lin2(torch.relu(net.lin1(g)))
    torch.testing.assert_close(net(x, ei, batch), want)

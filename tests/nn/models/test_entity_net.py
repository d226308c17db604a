"""EntityNet: ``conv2(ReLU(conv1(one-hot nodes)))`` and its restriction to target nodes."""

from __future__ import annotations

import pytest
import torch
from torch_geometric.nn import FastRGCNConv

from gfbgcn.nn import EntityNet, GFBRGCNConv


def _path(num_nodes: int) -> tuple[torch.Tensor, torch.Tensor]:
    """A path 0-1-...-(n-1) in both directions; relation = direction."""
    src = torch.arange(num_nodes - 1)
    edge_index = torch.cat([torch.stack([src, src + 1]), torch.stack([src + 1, src])], dim=1)
    edge_type = torch.cat([torch.zeros(num_nodes - 1), torch.ones(num_nodes - 1)]).long()
    return edge_index, edge_type


def _net(model: str, num_nodes: int, hidden: int = 5, classes: int = 3) -> EntityNet:
    conv = GFBRGCNConv if model == "gfb-rgcn" else FastRGCNConv
    return EntityNet(conv(num_nodes, hidden, 2, num_bases=2), conv(hidden, classes, 2, num_bases=2))


@pytest.mark.parametrize("model", ["rgcn", "gfb-rgcn"])
def test_target_restriction_is_exact(model: str) -> None:
    edge_index, edge_type = _path(20)
    torch.manual_seed(0)
    net = _net(model, 20)
    target = torch.tensor([3, 0, 17])
    full = net(edge_index, edge_type)
    assert full.shape == (20, 3)
    torch.testing.assert_close(net(edge_index, edge_type, target), full[target])
    # the precomputed edges a training loop reuses every epoch give the same scores
    edges = net.target_edges(edge_index, edge_type, target, 20)
    assert bool((edges.edge_index[1] < 3).all())
    assert edges.edge_type.numel() == edges.edge_index.size(1)
    torch.testing.assert_close(net(edge_index, edge_type, edges), full[target])
    with pytest.raises(ValueError, match="distinct"):
        net(edge_index, edge_type, torch.tensor([3, 3]))


@pytest.mark.parametrize("model", ["rgcn", "gfb-rgcn"])
def test_forward_is_conv2_of_relu_conv1_on_featureless_nodes(model: str) -> None:
    edge_index, edge_type = _path(8)
    torch.manual_seed(1)
    net = _net(model, 8).double()
    h = torch.relu(net.conv1(None, edge_index, edge_type))
    expected = net.conv2(h, edge_index, edge_type)
    torch.testing.assert_close(net(edge_index, edge_type), expected)
    # featureless: conv1(None) equals conv1 on one-hot (identity) features
    eye = torch.eye(8, dtype=torch.float64)
    torch.testing.assert_close(net.conv1(eye, edge_index, edge_type),
                               net.conv1(None, edge_index, edge_type))


def test_lambdas_and_reset() -> None:
    assert _net("rgcn", 6).lambdas() == []
    net = _net("gfb-rgcn", 6)
    assert net.lambdas() == [1.0, 1.0]
    with torch.no_grad():
        net.conv1.lam.fill_(0.5)
        net.conv2.lam.fill_(-2.0)
    assert net.lambdas() == [0.5, -2.0]
    net.reset_parameters()
    assert net.lambdas() == [1.0, 1.0]

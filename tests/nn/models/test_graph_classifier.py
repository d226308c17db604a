"""GraphClassifier: the shared adjacency (GCN-normalised or binary), the forward formula
(convolutions, global mean pooling, MLP head) and its arguments."""

from __future__ import annotations

import pytest
import torch
from torch import Tensor
from torch_geometric.nn import SAGEConv

from gfbgcn.nn import CachedTransposeGCNConv, GFBConv, GraphClassifier

# two graphs: a path 0-1-2 and a triangle 3-4-5 with a pendant 6, both directions stored
EDGES = [(0, 1), (1, 2), (3, 4), (4, 5), (5, 3), (5, 6)]
EDGE_INDEX = torch.tensor([[a for a, b in EDGES] + [b for a, b in EDGES],
                           [b for a, b in EDGES] + [a for a, b in EDGES]])
BATCH = torch.tensor([0, 0, 0, 1, 1, 1, 1])
N = 7


def dense_a() -> Tensor:
    a = torch.zeros(N, N, dtype=torch.float64)
    a[EDGE_INDEX[1], EDGE_INDEX[0]] = 1.0
    return a


def randomize_(model: torch.nn.Module, seed: int = 0) -> torch.nn.Module:
    model.double()
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.rand(p.shape, generator=gen, dtype=p.dtype) - 0.5)
    return model


def test_gcn_adjacency_is_the_normalised_matrix() -> None:
    net = GraphClassifier([CachedTransposeGCNConv(3, 4, normalize=False)], 4, 2)
    adj = net.adjacency(EDGE_INDEX, N, torch.float64)
    assert adj.layout == torch.sparse_csr
    a_tilde = dense_a() + torch.eye(N, dtype=torch.float64)
    d = a_tilde.sum(1).rsqrt()
    torch.testing.assert_close(adj.to_dense(), d[:, None] * a_tilde * d[None, :])


def test_binary_adjacency_and_multigraph_fallback() -> None:
    net = GraphClassifier([SAGEConv(3, 4)], 4, 2, adjacency="binary")
    adj = net.adjacency(EDGE_INDEX, N, torch.float64)
    torch.testing.assert_close(adj.to_dense(), dense_a())  # row = target, no self-loops
    doubled = torch.cat([EDGE_INDEX, EDGE_INDEX[:, :1]], dim=1)  # edge 0 -> 1 twice
    assert net.adjacency(doubled, N, torch.float64) is doubled  # mean must count the copy


@pytest.mark.parametrize("kind", ["gcn", "binary"])
def test_forward_equals_the_literal_formula(kind: str) -> None:
    """h_l = ReLU(conv_l(h_{l-1})), g = mean over each graph, y = W2 ReLU(W1 g + b1) + b2."""
    if kind == "gcn":
        convs = [GFBConv(3, 4, summarize="diag", normalize=False),
                 GFBConv(4, 4, summarize="diag", normalize=False)]
    else:
        convs = [SAGEConv(3, 4), SAGEConv(4, 4)]
    net = randomize_(GraphClassifier(convs, 4, 2, dropout=0.5, adjacency=kind)).eval()
    x = torch.randn(N, 3, dtype=torch.float64)
    adj = net.adjacency(EDGE_INDEX, N, torch.float64)
    h = x
    for conv in net.convs:
        h = torch.relu(conv(h, adj))
    g = torch.stack([h[BATCH == b].mean(0) for b in range(2)])
    expected = torch.relu(g @ net.lin1.weight.t() + net.lin1.bias) @ net.lin2.weight.t() \
        + net.lin2.bias
    out = net(x, EDGE_INDEX, BATCH)
    assert out.shape == (2, 2)
    torch.testing.assert_close(out, expected, rtol=1e-12, atol=1e-12)
    # the symmetric adjacency marked as such: same result
    torch.testing.assert_close(net(x, EDGE_INDEX, BATCH, undirected=True), expected)


def test_dropout_only_in_training_and_reset() -> None:
    net = randomize_(GraphClassifier([SAGEConv(3, 8)], 8, 2, dropout=0.9, adjacency="binary"))
    x = torch.randn(N, 3, dtype=torch.float64)
    net.eval()
    torch.testing.assert_close(net(x, EDGE_INDEX, BATCH), net(x, EDGE_INDEX, BATCH))
    net.train()
    torch.manual_seed(0)
    outs = [net(x, EDGE_INDEX, BATCH) for _ in range(4)]
    assert any(not torch.allclose(outs[0], o) for o in outs[1:])
    before = net.lin1.weight.clone()
    net.reset_parameters()
    assert not torch.equal(before, net.lin1.weight)


def test_arguments_are_checked() -> None:
    with pytest.raises(ValueError, match="at least one"):
        GraphClassifier([], 4, 2)
    with pytest.raises(ValueError, match="adjacency"):
        GraphClassifier([SAGEConv(3, 4)], 4, 2, adjacency="laplacian")

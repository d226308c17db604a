"""GFBConv (Eq. ``cfm``): repr, the shared checks against a literal dense float64 evaluation,
parameter count, GCN limit, lambda, exact vs fast."""

from __future__ import annotations

import pytest
import torch
from torch import Tensor
from torch_geometric.nn import GCNConv

from gfbgcn.nn import GFBConv, genvec

from . import helpers
from .helpers import OUT, D

SUMMARIZERS = ("max", "mean", "diag", "topk", "upper")
CONFIGS = [(name, exact) for name in SUMMARIZERS for exact in (True, False)]
IDS = [f"{name}-{'exact' if exact else 'fast'}" for name, exact in CONFIGS]


def factory(summarize: str, exact: bool):
    def make(**kwargs) -> GFBConv:
        return GFBConv(D, OUT, summarize=summarize, exact=exact, eps=0.05, k_top=2, **kwargs)

    return make


def reference(layer: GFBConv, x: Tensor, a: Tensor) -> Tensor:
    """Eq. cfm in its literal order: A (W x + lambda GenVec(W x x^T W^T + eps I)) + b."""
    h = x @ layer.lin.weight.t()
    second = helpers.literal_genvec(h, layer.summarize, layer.eps, layer.k_top, layer.exact)
    return a @ (h + layer.lam * second) + layer.bias


def test_repr() -> None:
    assert repr(GFBConv(200, 8, summarize="max")) == "GFBConv(200, 8, summarize=max)"
    assert repr(GFBConv(16, 4, summarize="TopKVec")) == "GFBConv(16, 4, summarize=topk)"
    assert repr(GFBConv(16, 4, summarize="mean")) == "GFBConv(16, 4, summarize=mean)"


# ---- GFBConv specifics ---------------------------------------------------------------------


def _graph() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    gen = torch.Generator().manual_seed(0)
    edge_index = torch.tensor([[0, 1, 1, 2, 3, 4, 2], [1, 0, 2, 1, 4, 3, 4]])
    weight = 0.5 + torch.rand(edge_index.size(1), generator=gen, dtype=torch.float64)
    x = torch.randn(5, 6, generator=gen, dtype=torch.float64)
    return x, edge_index, weight


@pytest.mark.parametrize("bias", [True, False])
def test_parameter_count_is_gcn_plus_one(bias: bool) -> None:
    def count(m: torch.nn.Module) -> int:
        return sum(p.numel() for p in m.parameters())

    assert count(GFBConv(200, 8, bias=bias)) == count(GCNConv(200, 8, bias=bias)) + 1
    assert count(GFBConv(200, 8, bias=bias)) == 200 * 8 + (8 if bias else 0) + 1


@pytest.mark.parametrize("summarize", ["max", "mean", "diag", "topk", "upper"])
def test_lambda_zero_is_gcnconv(summarize: str) -> None:
    x, edge_index, weight = _graph()
    gfb = GFBConv(6, 4, summarize=summarize, lambda_init=0.0).double()
    gcn = GCNConv(6, 4).double()
    with torch.no_grad():
        gcn.lin.weight.copy_(gfb.lin.weight)
        gfb.bias.uniform_(-1, 1)
        gcn.bias.copy_(gfb.bias)
    torch.testing.assert_close(gfb(x, edge_index, weight), gcn(x, edge_index, weight))


def test_second_order_term_is_lambda_times_genvec() -> None:
    x, edge_index, weight = _graph()
    layer = GFBConv(6, 4, lambda_init=0.0, bias=False).double()
    base = layer(x, edge_index, weight)
    with torch.no_grad():
        layer.lam.fill_(2.0)
    h = layer.lin(x)
    # aggregate lambda * GenVec alone through a GCN with identity weight on h
    gcn = GCNConv(4, 4, bias=False).double()
    with torch.no_grad():
        gcn.lin.weight.copy_(torch.eye(4, dtype=torch.float64))
    expected = base + 2.0 * gcn(genvec(h, "max", eps=layer.eps), edge_index, weight)
    torch.testing.assert_close(layer(x, edge_index, weight), expected)


def test_lambda_is_learned_and_reset() -> None:
    x, edge_index, weight = _graph()
    layer = GFBConv(6, 4, lambda_init=0.25).double()
    assert layer.lam.item() == pytest.approx(0.25)
    assert layer.lam.requires_grad and layer.lam.dim() == 0
    layer(x, edge_index, weight).pow(2).sum().backward()
    assert layer.lam.grad is not None and layer.lam.grad.abs().item() > 0
    with torch.no_grad():
        layer.lam.fill_(3.0)
        layer.bias.fill_(1.0)
    layer.reset_parameters()
    assert layer.lam.item() == pytest.approx(0.25)
    assert torch.all(layer.bias == 0)


def test_defaults() -> None:
    layer = GFBConv(10, 5)
    assert layer.summarize == "max"
    assert layer.exact is True
    assert layer.eps == pytest.approx(1e-3)
    assert layer.lam.item() == pytest.approx(1.0)
    assert layer.k_top == 3 and not layer.cached
    assert layer.normalize and layer.add_self_loops


def test_exact_and_fast_agree_for_nonnegative_projection_and_zero_eps() -> None:
    x, edge_index, weight = _graph()
    x = x.abs()
    exact = GFBConv(6, 4, eps=0.0).double()
    fast = GFBConv(6, 4, eps=0.0, exact=False).double()
    with torch.no_grad():
        exact.lin.weight.abs_()
        fast.lin.weight.copy_(exact.lin.weight)
    torch.testing.assert_close(exact(x, edge_index, weight), fast(x, edge_index, weight))
    # and disagree once h' has negative entries
    with torch.no_grad():
        exact.lin.weight.neg_()
        fast.lin.weight.neg_()
    assert not torch.allclose(exact(x, edge_index, weight), fast(x, edge_index, weight))


def test_invalid_arguments() -> None:
    with pytest.raises(ValueError, match="k_top"):
        GFBConv(8, 2, summarize="topk", k_top=3)
    with pytest.raises(ValueError, match="summarizer"):
        GFBConv(8, 2, summarize="median")
    with pytest.raises(ValueError, match="bipartite"):
        GFBConv(8, 2)((torch.randn(3, 8), torch.randn(3, 8)), torch.tensor([[0], [1]]))


def test_used_inside_a_pyg_model() -> None:
    class Net(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv1 = GCNConv(6, 8)
            self.conv2 = GFBConv(8, 3, summarize="max")

        def forward(self, x, edge_index, edge_weight=None):
            return self.conv2(torch.relu(self.conv1(x, edge_index, edge_weight)), edge_index,
                              edge_weight)

    x, edge_index, weight = _graph()
    torch.manual_seed(0)  # the initialisation must not depend on the tests run before
    net = Net().double()
    opt = torch.optim.Adam(net.parameters(), lr=0.05)
    y = torch.tensor([0, 1, 2, 0, 1])
    losses = []
    for _ in range(60):
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(net(x, edge_index, weight), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.5 * losses[0]

"""SqrtGCNConv ("Text GCN + Square root") and the smooth signed square root."""

from __future__ import annotations

import math

import pytest
import torch
from torch import Tensor
from torch_geometric.nn import GCNConv

from gfbgcn.nn import SqrtGCNConv

from .helpers import OUT, D


def factory(**kwargs) -> SqrtGCNConv:
    return SqrtGCNConv(D, OUT, delta=0.05, **kwargs)


def reference(layer: SqrtGCNConv, x: Tensor, a: Tensor) -> Tensor:
    """sign(z) (sqrt(|z| + delta) - sqrt(delta)) + b with z = A (W x)."""
    z = a @ (x @ layer.lin.weight.t())
    delta = layer.delta
    return torch.sign(z) * (torch.sqrt(z.abs() + delta) - math.sqrt(delta)) + layer.bias


def _count(m: torch.nn.Module) -> int:
    return sum(p.numel() for p in m.parameters())


def test_repr() -> None:
    assert repr(SqrtGCNConv(20, 4)) == "SqrtGCNConv(20, 4)"


# ---- SqrtGCNConv specifics -----------------------------------------------------------------


def test_sqrt_gcn_gradient_at_a_zero_response() -> None:
    """A node whose aggregated response is exactly 0 (no features) passes gradient on with the
    slope of the signed square root at 0, 1 / (2 sqrt(delta)), as a layer derivative."""
    layer = SqrtGCNConv(2, 1, delta=0.04, normalize=False, add_self_loops=False).double()
    x = torch.tensor([[0.0, 0.0], [1.0, 2.0]], dtype=torch.float64)
    edge_index = torch.tensor([[0, 1], [0, 1]])  # two self-loops: node 0 sees only its zeros
    out = layer(x, edge_index)
    assert out[0, 0].item() == layer.bias.item()
    (grad,) = torch.autograd.grad(out[0, 0], layer.lin.weight)
    assert grad.abs().max().item() == 0.0  # d z_0 / d W = x_0 = 0: nothing to pass on
    (gx,) = torch.autograd.grad(layer(x.requires_grad_(True), edge_index)[0, 0], x)
    torch.testing.assert_close(gx[0], layer.lin.weight[0].detach() / (2 * math.sqrt(0.04)))


def test_sqrt_gcn_parameters_and_validation() -> None:
    assert _count(SqrtGCNConv(20, 4)) == _count(GCNConv(20, 4))
    with pytest.raises(ValueError):
        SqrtGCNConv(20, 4, delta=0.0)

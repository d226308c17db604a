"""SqrtGCNConv ("Text GCN + Square root") and the smooth signed square root."""

from __future__ import annotations

import math

import pytest
import torch
from torch import Tensor
from torch_geometric.nn import GCNConv

from gfbgcn.nn import SqrtGCNConv
from gfbgcn.nn.conv.sqrt_gcn_conv import signed_sqrt

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


def test_signed_sqrt_values_and_slope_at_zero() -> None:
    delta = 0.01
    z = torch.tensor([-9.0, -1e-4, 0.0, 1e-4, 4.0], dtype=torch.float64, requires_grad=True)
    out = signed_sqrt(z, delta)
    expected = torch.sign(z) * (torch.sqrt(z.abs() + delta) - math.sqrt(delta))
    torch.testing.assert_close(out, expected.detach())
    out.sum().backward()
    assert z.grad[2].item() == pytest.approx(1 / (2 * math.sqrt(delta)))  # finite, not 0/inf
    big = torch.linspace(-100, 100, 201, dtype=torch.float64)
    assert (signed_sqrt(big, delta) - torch.sign(big) * big.abs().sqrt()).abs().max() <= 0.1
    torch.testing.assert_close(signed_sqrt(-big, delta), -signed_sqrt(big, delta))


def test_sqrt_gcn_parameters_and_validation() -> None:
    assert _count(SqrtGCNConv(20, 4)) == _count(GCNConv(20, 4))
    with pytest.raises(ValueError):
        SqrtGCNConv(20, 4, delta=0.0)

"""BPConv: bilinear pooling (Eq. ``bipool``) without forming ``d^2`` features, and ``vec_upper``."""

from __future__ import annotations

import pytest
import torch
from torch import Tensor

from gfbgcn.nn import BPConv
from gfbgcn.nn.conv.bp_conv import vec_upper

from .helpers import OUT, D


def factory(**kwargs) -> BPConv:
    return BPConv(D, OUT, eps=0.05, chunk_size=4, **kwargs)


def reference(layer: BPConv, x: Tensor, a: Tensor) -> Tensor:
    """Eq. bipool, W . Omega{vec_upper(x x^T + eps I)} with the d(d+1)/2 features formed."""
    rows, cols = zip(*[(i, j) for i in range(D) for j in range(i, D)])
    m = x[:, :, None] * x[:, None, :] + layer.eps * torch.eye(D, dtype=x.dtype)
    vec = m[:, list(rows), list(cols)]
    return (a @ vec) @ layer.weight.t() + layer.bias


def _count(m: torch.nn.Module) -> int:
    return sum(p.numel() for p in m.parameters())


def _randn(*shape: int, seed: int = 0) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


def test_repr() -> None:
    assert repr(BPConv(16, 4)) == "BPConv(16, 4)"


# ---- BPConv specifics ----------------------------------------------------------------------


def test_vec_upper_order_and_size() -> None:
    m = torch.arange(9.0).reshape(3, 3)
    assert vec_upper(m).tolist() == [0.0, 1.0, 2.0, 4.0, 5.0, 8.0]
    assert vec_upper(torch.zeros(2, 16, 16)).shape == (2, 136)  # the paper's 16 -> 136


@pytest.mark.parametrize("d", [1, 2, 5, 9])
@pytest.mark.parametrize("eps", [0.0, 1e-3, 0.4])
@pytest.mark.parametrize("chunk_size", [None, 3])
def test_bp_quadratic_form_equals_materialised(d: int, eps: float, chunk_size: int | None) -> None:
    layer = BPConv(d, 4, eps=eps, chunk_size=chunk_size).double()
    x = _randn(11, d, seed=d)
    torch.testing.assert_close(
        layer.node_features(x), layer.materialized_node_features(x), rtol=1e-10, atol=1e-10
    )


def test_bp_upper_matrices_and_eps_term() -> None:
    layer = BPConv(5, 3, eps=0.25).double()
    u = layer.upper_matrices()
    assert u.shape == (3, 5, 5)
    assert torch.equal(torch.tril(u, diagonal=-1), torch.zeros_like(u))
    torch.testing.assert_close(vec_upper(u), layer.weight)
    # at x = 0 only eps * tr(U_c) is left
    zero = torch.zeros(2, 5, dtype=torch.float64)
    expected = 0.25 * torch.diagonal(u, dim1=-2, dim2=-1).sum(-1)
    torch.testing.assert_close(layer.node_features(zero), expected.expand(2, 3))


def test_bp_parameter_count() -> None:
    assert _count(BPConv(16, 4)) == 4 * 136 + 4
    assert _count(BPConv(16, 4, bias=False)) == 4 * 136

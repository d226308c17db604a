"""FBPConv: factorized bilinear pooling (Eq. ``fm``) with a linear read-out, and its ``vec``."""

from __future__ import annotations

import pytest
import torch
from torch import Tensor

from gfbgcn.nn import FBPConv
from gfbgcn.nn.conv.fbp_conv import fbp_vectorize

from . import helpers
from .helpers import OUT, D


def factory(**kwargs) -> FBPConv:
    return FBPConv(D, OUT, rank=3, eps=0.05, chunk_size=4, **kwargs)


def reference(layer: FBPConv, x: Tensor, a: Tensor) -> Tensor:
    """Eq. fm in its literal order: aggregate the k^2 features vec(W x x^T W^T + eps I) first,
    then the read-out L, then the bias."""
    h = x @ layer.proj.weight.t()
    k = h.size(1)
    m = h[:, :, None] * h[:, None, :] + layer.eps * torch.eye(k, dtype=h.dtype)
    vec = torch.stack([m[:, i, j] for i in range(k) for j in range(k)], dim=1)  # row-major
    return (a @ vec) @ layer.lin.weight.t() + layer.bias


def _count(m: torch.nn.Module) -> int:
    return sum(p.numel() for p in m.parameters())


def _randn(*shape: int, seed: int = 0) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


def test_repr() -> None:
    assert repr(FBPConv(200, 8)) == "FBPConv(200, 8, rank=16)"
    assert repr(FBPConv(5, 2, rank=3)) == "FBPConv(5, 2, rank=3)"


# ---- FBPConv specifics ---------------------------------------------------------------------


def test_fbp_vectorize() -> None:
    h = _randn(7, 3)
    vec = fbp_vectorize(h, eps=0.5)
    assert vec.shape == (7, 9)
    m = vec.reshape(7, 3, 3)
    torch.testing.assert_close(m, m.transpose(1, 2))
    torch.testing.assert_close(torch.diagonal(m, dim1=1, dim2=2), h * h + 0.5)
    torch.testing.assert_close(m[:, 0, 2], h[:, 0] * h[:, 2])


def test_fbp_shapes_and_parameter_count() -> None:
    layer = FBPConv(200, 8)
    assert layer.rank == 16 and layer.lin.in_channels == 256
    assert _count(layer) == 200 * 16 + 256 * 8 + 8
    out = layer(torch.randn(5, 200), torch.tensor([[0, 1, 2], [1, 2, 3]]))
    assert out.shape == (5, 8)


@pytest.mark.parametrize("chunk_size", [None, 1, 2, 5])
def test_chunking_does_not_change_the_output(chunk_size: int | None) -> None:
    edge_index, weight = helpers.graph()
    x = helpers.features()
    whole = helpers.make(lambda **kw: FBPConv(D, OUT, rank=3, chunk_size=None, **kw))
    chunked = helpers.make(lambda **kw: FBPConv(D, OUT, rank=3, chunk_size=chunk_size, **kw))
    torch.testing.assert_close(chunked(x, edge_index, weight), whole(x, edge_index, weight))

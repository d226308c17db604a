"""Count sketch and Tensor Sketch (Pham & Pagh 2013), the approximation behind CBP."""

from __future__ import annotations

import torch
from torch import Tensor

__all__ = ["count_sketch", "tensor_sketch"]


def count_sketch(x: Tensor, index: Tensor, sign: Tensor, sketch_dim: int) -> Tensor:
    """Count sketch ``C x``: ``(C x)_b = sum_{i: index_i = b} sign_i x_i``.

    ``x`` [N, d], ``index`` [d] (long in ``[0, sketch_dim)``), ``sign`` [d] (+-1) -> [N, D].
    """
    out = x.new_zeros(x.size(0), sketch_dim)
    return out.index_add(1, index, x * sign)


def tensor_sketch(
    x: Tensor,
    index1: Tensor,
    sign1: Tensor,
    index2: Tensor,
    sign2: Tensor,
    sketch_dim: int,
) -> Tensor:
    """Tensor Sketch of ``x x^T``: ``irfft(rfft(C1 x) * rfft(C2 x))``.  [N, d] -> [N, D].

    With independent random hashes/signs, ``<TS(x), TS(y)>`` is an unbiased estimate of
    ``<x x^T, y y^T> = <x, y>^2`` (Pham & Pagh 2013).
    """
    f1 = torch.fft.rfft(count_sketch(x, index1, sign1, sketch_dim), dim=-1)
    f2 = torch.fft.rfft(count_sketch(x, index2, sign2, sketch_dim), dim=-1)
    return torch.fft.irfft(f1 * f2, n=sketch_dim, dim=-1)

"""Count sketch and Tensor Sketch (Pham & Pagh 2013): definitions and unbiasedness."""

from __future__ import annotations

import math

import torch

from gfbgcn.nn.sketch import count_sketch, tensor_sketch


def _randn(*shape: int, seed: int = 0) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


def _draw(d: int, dim: int, gen: torch.Generator) -> tuple[torch.Tensor, ...]:
    h1 = torch.randint(dim, (d,), generator=gen)
    s1 = torch.randint(2, (d,), generator=gen).double() * 2 - 1
    h2 = torch.randint(dim, (d,), generator=gen)
    s2 = torch.randint(2, (d,), generator=gen).double() * 2 - 1
    return h1, s1, h2, s2


def test_count_sketch_definition() -> None:
    x = torch.tensor([[1.0, 2.0, 3.0, 4.0]], dtype=torch.float64)
    index = torch.tensor([0, 2, 0, 1])
    sign = torch.tensor([1.0, -1.0, -1.0, 1.0], dtype=torch.float64)
    assert count_sketch(x, index, sign, 3).tolist() == [[1.0 - 3.0, 4.0, -2.0]]


def test_tensor_sketch_equals_explicit_sketch_of_outer_product() -> None:
    """TS(x) = P vec(x x^T) with P[(h1(i) + h2(j)) mod D, (i, j)] = s1(i) s2(j)."""
    d, dim = 5, 8
    h1, s1, h2, s2 = _draw(d, dim, torch.Generator().manual_seed(3))
    p = torch.zeros(dim, d * d, dtype=torch.float64)
    for i in range(d):
        for j in range(d):
            p[(h1[i] + h2[j]) % dim, i * d + j] += s1[i] * s2[j]
    x = _randn(6, d)
    outer = (x[:, :, None] * x[:, None, :]).reshape(6, -1)
    torch.testing.assert_close(tensor_sketch(x, h1, s1, h2, s2, dim), outer @ p.t())


def test_tensor_sketch_is_unbiased_over_hash_draws() -> None:
    """E_hash <TS(x), TS(y)> = <x, y>^2: the mean of 1000 draws is within 4 standard errors."""
    d, dim, draws = 8, 16, 1000
    x, y = _randn(1, d, seed=1), _randn(1, d, seed=2)
    gen = torch.Generator().manual_seed(5)
    estimates = []
    for _ in range(draws):
        h1, s1, h2, s2 = _draw(d, dim, gen)
        tx = tensor_sketch(x, h1, s1, h2, s2, dim)
        ty = tensor_sketch(y, h1, s1, h2, s2, dim)
        estimates.append((tx * ty).sum())
    est = torch.stack(estimates)
    true = (x * y).sum() ** 2
    stderr = est.std() / math.sqrt(draws)
    assert stderr > 0
    assert (est.mean() - true).abs() < 4 * stderr

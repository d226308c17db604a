"""``chunked``: a row-wise function over chunks of rows equals the function on all rows;
``dropout``: the distribution and gradient of ``F.dropout``."""

from __future__ import annotations

import pytest
import torch

from gfbgcn.nn.utils import chunked, dropout


@pytest.mark.parametrize("chunk_size", [None, 1, 3, 7, 10, 100])
def test_chunked_equals_whole_and_calls_per_chunk(chunk_size: int | None) -> None:
    x = torch.randn(10, 4, dtype=torch.float64)
    sizes: list[int] = []

    def fn(part: torch.Tensor) -> torch.Tensor:
        sizes.append(part.size(0))
        return torch.cat([part.square(), part.sum(1, keepdim=True)], dim=1)  # [n, 5]

    out = chunked(fn, x, chunk_size)
    torch.testing.assert_close(out, torch.cat([x.square(), x.sum(1, keepdim=True)], dim=1))
    if chunk_size is None or chunk_size >= 10:
        assert sizes == [10]
    else:
        assert sizes == [len(c) for c in x.split(chunk_size)]
        assert max(sizes) <= chunk_size


def test_chunked_keeps_gradients() -> None:
    x = torch.randn(9, 3, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda t: chunked(torch.sin, t, 4), (x,))


@pytest.mark.parametrize("p", [0.2, 0.5, 0.9])
def test_dropout_keeps_share_and_scales_like_torch(p: float) -> None:
    x = torch.ones(400, 500, dtype=torch.float64)
    gen_state = torch.random.get_rng_state()
    out = dropout(x, p, training=True)
    kept = out != 0
    # each entry kept with probability 1 - p, 200,000 draws: 5 standard deviations
    sd = (p * (1 - p) / x.numel()) ** 0.5
    assert abs(kept.double().mean().item() - (1 - p)) < 5 * sd
    torch.testing.assert_close(out[kept], torch.full_like(out[kept], 1 / (1 - p)))
    assert not torch.equal(torch.random.get_rng_state(), gen_state)  # it draws from torch's RNG


def test_dropout_gradient_is_the_mask() -> None:
    x = torch.randn(50, 8, dtype=torch.float64, requires_grad=True)
    torch.manual_seed(0)
    out = dropout(x, 0.5, training=True)
    out.sum().backward()
    assert x.grad is not None
    mask = out.detach() / x.detach()
    torch.testing.assert_close(x.grad, mask)
    assert set(mask.unique().tolist()) <= {0.0, 2.0}


def test_dropout_is_identity_outside_training_and_at_zero() -> None:
    x = torch.randn(6, 3)
    assert dropout(x, 0.5, training=False) is x
    assert dropout(x, 0.0, training=True) is x
    assert torch.equal(dropout(x, 1.0, training=True), torch.zeros_like(x))

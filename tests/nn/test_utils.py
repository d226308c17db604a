"""``chunked``: a row-wise function over chunks of rows equals the function on all rows;
``dropout``: the distribution and gradient of ``F.dropout``; ``keep_mask``: its share of ``True``
on both of its routes (random bytes, ``torch.rand``)."""

from __future__ import annotations

import pytest
import torch

from gfbgcn.nn.utils import chunked, dropout, keep_mask


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


@pytest.mark.parametrize("p", [0.5, 0.25, 0.3, 0.9])  # bytes (256 p whole), bytes, rand, rand
@pytest.mark.parametrize("shape", [(400, 500), (7, 3, 11)])  # 7 * 3 * 11: not a multiple of 7
def test_keep_mask_keeps_the_share_one_minus_p(p: float, shape: tuple[int, ...]) -> None:
    x = torch.empty(shape)
    mask = keep_mask(x, p)
    assert mask.dtype == torch.bool and mask.shape == x.shape
    if x.numel() >= 10_000:
        sd = (p * (1 - p) / x.numel()) ** 0.5
        assert abs(mask.double().mean().item() - (1 - p)) < 5 * sd


def test_keep_mask_draws_every_byte_position_alike() -> None:
    """The seven bytes taken from each 64-bit draw are all uniform: per position (entry index
    mod 7) the kept share is 1/2 within 5 sd; a biased top byte would keep all of its entries."""
    mask = keep_mask(torch.empty(7 * 40_000), 0.5).view(-1, 7).double()
    sd = (0.25 / 40_000) ** 0.5
    assert (mask.mean(0) - 0.5).abs().max().item() < 5 * sd


def test_keep_mask_is_reproducible_from_the_seed() -> None:
    x = torch.empty(50, 20)
    torch.manual_seed(4)
    first = keep_mask(x, 0.5)
    torch.manual_seed(4)
    assert torch.equal(first, keep_mask(x, 0.5))

"""``chunked``: a row-wise function over chunks of rows equals the function on all rows."""

from __future__ import annotations

import pytest
import torch

from gfbgcn.nn.utils import chunked


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

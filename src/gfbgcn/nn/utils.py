"""Small tensor helpers shared by the layers."""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor


def chunked(fn: Callable[[Tensor], Tensor], x: Tensor, chunk_size: int | None) -> Tensor:
    """Apply a row-wise ``fn`` ([n, *] -> [n, *]) over chunks of rows to bound peak memory.

    Layers whose per-node features are wide (FBP's ``k^2``, CBP's sketch, BP's ``out x d``
    intermediate) form them ``chunk_size`` nodes at a time; ``None`` means all at once.
    """
    if chunk_size is None or x.size(0) <= chunk_size:
        return fn(x)
    return torch.cat([fn(part) for part in x.split(chunk_size, dim=0)], dim=0)

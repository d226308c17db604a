"""Small tensor helpers shared by the layers."""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import Tensor


def chunked(fn: Callable[[Tensor], Tensor], x: Tensor, chunk_size: int | None) -> Tensor:
    """Apply a row-wise ``fn`` ([n, *] -> [n, *]) over chunks of rows to bound peak memory.

    Layers whose per-node features are wide (FBP's ``k^2``, CBP's sketch, BP's ``out x d``
    intermediate) form them ``chunk_size`` nodes at a time; ``None`` means all at once.
    """
    if chunk_size is None or x.size(0) <= chunk_size:
        return fn(x)
    return torch.cat([fn(part) for part in x.split(chunk_size, dim=0)], dim=0)


def dropout(x: Tensor, p: float, training: bool) -> Tensor:
    """``F.dropout(x, p, training)``, with the mask drawn by ``torch.rand`` on the CPU.

    Each entry is kept with probability ``1 - p`` and scaled by ``1 / (1 - p)``: the same
    distribution as ``F.dropout``, from a different random stream.  On the CPU, torch's dropout
    draws its mask with ``bernoulli_``, several times slower than ``rand`` (``docs/layers.md``,
    "Measurements behind design choices"); on other devices this is ``F.dropout`` itself.

    Args:
        x: any floating tensor.
        p: the probability of zeroing an entry, in ``[0, 1]``.
        training: dropout applies only in training; otherwise ``x`` is returned.
    """
    if not training or p == 0.0:
        return x
    if x.device.type != "cpu" or p >= 1.0 or not x.is_floating_point():
        return F.dropout(x, p, training)
    mask = torch.rand_like(x).ge_(p).mul_(1.0 / (1.0 - p))  # 1/(1-p) where kept, else 0
    return x * mask

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


def keep_mask(x: Tensor, p: float) -> Tensor:
    """A boolean mask shaped like ``x``, each entry ``True`` with probability ``1 - p``, drawn
    from torch's default generator on ``x``'s device.

    On the CPU, when ``256 p`` is a whole number (the paper's ``p = 0.5`` among them), each
    entry compares one random byte with ``256 p``: one 64-bit draw gives seven bytes, against
    one draw an entry for ``torch.rand`` (the mt19937 generator is serial, and on R8's 31k x 200
    hidden features ``rand`` took 35 of an epoch's 370 ms: ``docs/layers.md``, "Measurements
    behind design choices").  Otherwise ``torch.rand(...) >= p``.

    Args:
        x: the tensor to mask (its shape and device are used, not its values).
        p: the probability of ``False``, in ``[0, 1]``.
    """
    threshold = p * 256
    if x.device.type != "cpu" or threshold != int(threshold):
        return torch.rand(x.shape, device=x.device) >= p
    n = x.numel()
    draws = -(-n // 7)
    # random_() on int64 is uniform on [0, 2^63): the seven low bytes are uniform, the top one not
    raw = torch.empty(draws, dtype=torch.int64).random_()
    uniform_bytes = raw.view(torch.uint8).view(draws, 8)[:, :7].reshape(-1)[:n]
    return uniform_bytes.view(x.shape) >= int(threshold)


def dropout(x: Tensor, p: float, training: bool) -> Tensor:
    """``F.dropout(x, p, training)``, with the mask of :func:`keep_mask` on the CPU.

    Each entry is kept with probability ``1 - p`` and scaled by ``1 / (1 - p)``: the same
    distribution as ``F.dropout``, from a different random stream.  On the CPU, torch's dropout
    draws its mask with ``bernoulli_``, several times slower (``docs/layers.md``, "Measurements
    behind design choices"); on other devices this is ``F.dropout`` itself.

    Args:
        x: any floating tensor.
        p: the probability of zeroing an entry, in ``[0, 1]``.
        training: dropout applies only in training; otherwise ``x`` is returned.
    """
    if not training or p == 0.0:
        return x
    if x.device.type != "cpu" or p >= 1.0 or not x.is_floating_point():
        return F.dropout(x, p, training)
    scale = keep_mask(x, p).to(x.dtype).mul_(1.0 / (1.0 - p))  # 1/(1-p) where kept, else 0
    return x * scale

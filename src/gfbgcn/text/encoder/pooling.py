"""Pooling: one vector per sequence from the encoder's last hidden states."""

from __future__ import annotations

import torch

__all__ = ["POOLINGS", "pool"]

#: The poolings supported (sentence-transformers' mean, CLS-token and max modes).
POOLINGS = ("mean", "cls", "max")


def pool(hidden: torch.Tensor, mask: torch.Tensor, mode: str) -> torch.Tensor:
    """Pool ``hidden`` ``[batch, tokens, dim]`` over the tokens that ``mask`` ``[batch,
    tokens]`` (1: a token, 0: padding) marks: ``mean`` (over the mask, special tokens included,
    as sentence-transformers does), ``cls`` (the first token) or ``max`` (element-wise over the
    mask).  Returns ``[batch, dim]``."""
    if mode == "cls":
        return hidden[:, 0]
    keep = mask.unsqueeze(-1).to(torch.bool)
    if mode == "mean":
        counts = keep.sum(dim=1).clamp_min(1).to(hidden.dtype)
        return (hidden * keep).sum(dim=1) / counts
    if mode == "max":
        return hidden.masked_fill(~keep, float("-inf")).amax(dim=1)
    raise ValueError(f"pooling {mode!r} is not one of {POOLINGS}")

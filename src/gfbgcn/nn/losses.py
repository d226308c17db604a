r"""Classification losses, plain or weighted by example (the text models' ``class_weight`` and
``sample_weight``: :mod:`gfbgcn.text.corpus.weights`).

Unweighted, the plain mean (PyTorch's own), so that an unweighted run is the one it was
before weights existed, bit for bit.  Weighted, the
weighted mean

.. math::
    \mathcal{L} = \frac{\sum_i w_i \, \ell_i}{\sum_i w_i},

which is what ``torch.nn.functional.cross_entropy(weight=...)`` computes for class weights
alone, with :math:`\ell_i` an example's cross-entropy (multi-label: each ``(example, label)``
term of the binary cross-entropy with its own weight).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor


def weighted_mean(losses: Tensor, weights: Tensor) -> Tensor:
    """The mean of ``losses`` weighted by ``weights`` (same shape); 0 where every weight is 0
    (nothing to learn from)."""
    return (losses * weights).sum() / weights.sum().clamp_min(torch.finfo(losses.dtype).tiny)


def cross_entropy(logits: Tensor, targets: Tensor, weights: Tensor | None = None) -> Tensor:
    """Mean cross-entropy of ``logits`` ``[n, C]`` against class ids ``targets`` ``[n]``,
    weighted by ``weights`` ``[n]`` when given."""
    if weights is None:
        return F.cross_entropy(logits, targets)
    return weighted_mean(F.cross_entropy(logits, targets, reduction="none"), weights)


def binary_cross_entropy(logits: Tensor, targets: Tensor, weights: Tensor | None = None
                         ) -> Tensor:
    """Mean binary cross-entropy (with logits) of ``logits`` ``[n, L]`` against 0/1
    ``targets`` ``[n, L]``, weighted by ``weights`` ``[n, L]`` when given."""
    if weights is None:
        return F.binary_cross_entropy_with_logits(logits, targets)
    return weighted_mean(F.binary_cross_entropy_with_logits(logits, targets, reduction="none"),
                         weights)

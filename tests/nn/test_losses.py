"""The losses, plain or weighted by example (``gfbgcn.nn.losses``)."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from gfbgcn.nn.losses import binary_cross_entropy, cross_entropy, weighted_mean


def test_unweighted_losses_are_pytorchs_own_bit_for_bit():
    gen = torch.Generator().manual_seed(0)
    logits, y = torch.randn(7, 3, generator=gen), torch.randint(0, 3, (7,), generator=gen)
    assert torch.equal(cross_entropy(logits, y), F.cross_entropy(logits, y))
    t = (torch.rand(7, 3, generator=gen) > 0.5).float()
    assert torch.equal(binary_cross_entropy(logits, t),
                       F.binary_cross_entropy_with_logits(logits, t))


def test_weighted_cross_entropy_is_the_weighted_mean_and_pytorchs_class_weighting():
    gen = torch.Generator().manual_seed(1)
    logits, y = torch.randn(9, 3, generator=gen), torch.randint(0, 3, (9,), generator=gen)
    w = torch.rand(9, generator=gen)
    per = F.cross_entropy(logits, y, reduction="none")
    torch.testing.assert_close(cross_entropy(logits, y, w), (per * w).sum() / w.sum())
    classes = torch.tensor([0.5, 2.0, 3.0])  # class weights alone: PyTorch's weight=
    torch.testing.assert_close(cross_entropy(logits, y, classes[y]),
                               F.cross_entropy(logits, y, weight=classes))
    t = (torch.rand(9, 3, generator=gen) > 0.5).float()
    wl = torch.rand(9, 3, generator=gen)
    per = F.binary_cross_entropy_with_logits(logits, t, reduction="none")
    torch.testing.assert_close(binary_cross_entropy(logits, t, wl), (per * wl).sum() / wl.sum())


def test_all_zero_weights_give_zero_not_nan():
    assert weighted_mean(torch.ones(3), torch.zeros(3)).item() == 0.0

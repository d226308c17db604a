r"""Normalisation of second-order features: signed square root and ℓ2, as in bilinear pooling.

Bilinear pooling (Lin et al. 2015) and compact bilinear pooling (Gao et al. 2016) pass their
second-order feature vector ``f`` through an element-wise signed square root and an ℓ2
normalisation before the classifier.  The GFB paper describes no such step; these options make
it a configuration of :class:`~gfbgcn.nn.conv.GFBConv` (on the GenVec term),
:class:`~gfbgcn.nn.conv.FBPConv` (on the ``k^2`` features) and
:class:`~gfbgcn.nn.conv.BPConv` (on the ``d(d+1)/2`` features), applied per node, before the
aggregation.  ``"none"`` (the default everywhere) leaves ``f`` untouched, bit for bit.

.. math::
    \mathrm{power}(f)_i = \mathrm{sign}(f_i)\big(\sqrt{|f_i| + \delta} - \sqrt{\delta}\big),
    \qquad
    \mathrm{l2}(f) = \frac{f}{\max(\lVert f \rVert_2, 10^{-12})}

``"power-l2"`` is ``l2(power(f))``; every mode except ``"none"`` then multiplies by ``scale``.
``delta`` keeps the derivative of the square root finite at 0 (``1 / (2 sqrt(delta))``), which
ReLU features hit exactly; the ``- sqrt(delta)`` keeps ``power(0) = 0`` and the sign odd.
:func:`signed_sqrt` is also the whole of :class:`~gfbgcn.nn.conv.SqrtGCNConv` ("Text GCN +
Square root", with its own ``delta``).
"""

from __future__ import annotations

import math
from typing import Final, Literal

import torch
from torch import Tensor

SecondNorm = Literal["none", "power", "l2", "power-l2"]
SECOND_NORMS: Final[tuple[str, ...]] = ("none", "power", "l2", "power-l2")
#: ``delta`` of the smoothed signed square root.
POWER_DELTA: Final[float] = 1e-6
#: floor of the ℓ2 norm (as ``torch.nn.functional.normalize``).
L2_FLOOR: Final[float] = 1e-12


def check_second_norm(mode: str) -> str:
    """``mode`` if it is one of :data:`SECOND_NORMS`, else ``ValueError``."""
    if mode not in SECOND_NORMS:
        raise ValueError(f"unknown second-order normalisation {mode!r}; choose one of "
                         f"{', '.join(SECOND_NORMS)}")
    return mode


def signed_sqrt(f: Tensor, delta: float = POWER_DELTA) -> Tensor:
    r"""Smooth signed square root ``sign(f) (sqrt(|f| + delta) - sqrt(delta))``, element-wise.

    Odd, zero at 0, ``sign(f) sqrt(|f|)`` within ``sqrt(delta)`` for ``|f| >> delta``, and
    continuously differentiable: its derivative ``1 / (2 sqrt(|f| + delta))`` is
    ``1 / (2 sqrt(delta))`` at 0 from both sides.  Any shape; ``delta > 0``.
    """
    # Computed as f / (sqrt(|f| + delta) + sqrt(delta)), algebraically identical, for two
    # reasons.  (1) The gradient at exactly 0 (ReLU outputs, products with a zero entry): the
    # function's derivative there is 1 / (2 sqrt(delta)) and autograd of this form returns it,
    # while the sign(f) * (...) form returns 0 (sign' = 0), a zero gradient where the slope
    # is steepest; delta exists to make that slope finite, not to cut it.  (2) No cancellation:
    # sqrt(|f| + delta) - sqrt(delta) loses the digits of |f| << delta (float32, delta = 1e-6).
    # SqrtGCNConv always used this form, so its results are unchanged; the "power" modes of
    # normalize_second used the sign form before (their forward changes in the last bits).
    return f / (torch.sqrt(f.abs() + delta) + math.sqrt(delta))


def normalize_second(f: Tensor, mode: str = "none", scale: float = 1.0,
                     delta: float = POWER_DELTA) -> Tensor:
    """Normalise each row (last dimension) of the second-order features ``f``.

    Args:
        f: ``[..., F]`` second-order features of each node.
        mode: ``"none"`` (``f`` itself, ``scale`` ignored), ``"power"``, ``"l2"`` or
            ``"power-l2"`` (see the module docs).
        scale: multiplier after the normalisation.
        delta: smoothing of the signed square root.
    """
    check_second_norm(mode)
    if mode == "none":
        return f
    if mode in ("power", "power-l2"):
        f = signed_sqrt(f, delta)
    if mode in ("l2", "power-l2"):
        f = f / f.norm(dim=-1, keepdim=True).clamp_min(L2_FLOOR)
    return f * scale if scale != 1.0 else f


__all__ = ["L2_FLOOR", "POWER_DELTA", "SECOND_NORMS", "SecondNorm", "check_second_norm",
           "normalize_second", "signed_sqrt"]

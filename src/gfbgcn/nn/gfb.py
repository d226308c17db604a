"""The GFB term shared by every GFB layer: its hyper-parameters, ``lambda`` and its reset.

GFB-GCN (:class:`~gfbgcn.nn.conv.GFBConv`), GFB-R-GCN (:class:`~gfbgcn.nn.conv.GFBRGCNConv`)
and GFB-GraphSAGE (:class:`~gfbgcn.nn.conv.GFBSAGEConv`) all turn a first-order message
``z = W h`` into ``z + lambda * GenVec(z z^T + eps I)`` (Eq. ``cfm``) before their own
aggregation.  :class:`GFBMixin` holds that part once.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor
from torch.nn import Parameter

from gfbgcn.nn.genvec import canonical_summarizer, genvec
from gfbgcn.nn.second_norm import check_second_norm, normalize_second

__all__ = ["GFBMixin"]


class GFBMixin:
    """Mixin for ``torch.nn.Module`` layers with a GFB term.

    Call :meth:`init_gfb` in ``__init__`` (after the parent's ``__init__``) and
    :meth:`reset_lambda` from ``reset_parameters``.  Attributes: ``summarize``, ``eps``,
    ``exact``, ``k_top``, ``lambda_init`` and the learnable scalar ``lam``.
    """

    summarize: str
    eps: float
    exact: bool
    k_top: int
    lambda_init: float
    second_norm: str = "none"
    second_scale: float = 1.0
    lam: Parameter

    def init_gfb(
        self,
        out_channels: int,
        summarize: str,
        eps: float,
        exact: bool,
        k_top: int,
        lambda_init: float,
        second_norm: str = "none",
        second_scale: float = 1.0,
    ) -> None:
        """Validate and store the GFB hyper-parameters and create ``lam = lambda_init``.

        ``second_norm`` / ``second_scale``: normalisation of the GenVec term per node
        (:func:`gfbgcn.nn.second_norm.normalize_second`; ``"none"`` is Eq. ``cfm`` as written).
        """
        self.summarize = canonical_summarizer(summarize)
        if self.summarize == "topk" and not 1 <= k_top <= out_channels:
            raise ValueError(f"TopKVec needs 1 <= k_top <= out_channels, got k_top={k_top}")
        self.eps = float(eps)
        self.exact = bool(exact)
        self.k_top = int(k_top)
        self.lambda_init = float(lambda_init)
        self.second_norm = check_second_norm(second_norm)
        self.second_scale = float(second_scale)
        self.lam = Parameter(torch.empty(()))  # lambda_l of Eq. cfm
        self.reset_lambda()

    def reset_lambda(self) -> None:
        """``lam = lambda_init``.  A no-op before :meth:`init_gfb` (PyG parents call
        ``reset_parameters`` from their own ``__init__``, before ``lam`` exists)."""
        lam = getattr(self, "lam", None)
        if lam is not None:
            with torch.no_grad():
                lam.fill_(self.lambda_init)

    def gfb_second(self, z: Tensor) -> Tensor:
        """``lambda N(GenVec(z z^T + eps I))`` per row (the second-order term alone)."""
        second = genvec(z, self.summarize, eps=self.eps, exact=self.exact, k_top=self.k_top)
        if self.second_norm != "none":
            second = normalize_second(second, self.second_norm, self.second_scale)
        return self.lam * second

    def gfb(self, z: Tensor) -> Tensor:
        """``z + lambda N(GenVec(z z^T + eps I))`` per row, ``N`` the optional normalisation
        (identity by default).  ``z``: [*, k] -> [*, k]."""
        return z + self.gfb_second(z)

    def _apply(self, fn: Callable[[Tensor], Tensor], recurse: bool = True) -> GFBMixin:
        # ``lam`` is created in the default dtype (float32): converting the layer to float64
        # would carry 0.7 over as 0.699999988.  A lambda still at its initial value is set
        # again from the Python float after the conversion, so ``.double()`` is exact.
        lam = getattr(self, "lam", None)
        at_init = (
            lam is not None
            and lam.device.type != "meta"
            and float(lam.detach()) == float(torch.tensor(self.lambda_init, dtype=lam.dtype))
        )
        out = super()._apply(fn, recurse)  # type: ignore[misc]
        if at_init and self.lam.is_floating_point():
            self.reset_lambda()
        return out

    def gfb_repr(self) -> str:
        """The GFB settings for ``__repr__``."""
        extra = "" if self.second_norm == "none" else f", second_norm={self.second_norm}"
        return f"summarize={self.summarize}{extra}"

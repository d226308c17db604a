"""Generalized compact vectorization (GenVec) of rank-one auto-correlation matrices.

For a node ``u`` with projected features ``h' = W h_u`` (``k`` channels) the paper forms

    M_u = h' h'^T + eps * I                       (Eq. ``cfm``, below it)
    GenVec(M_u)_i = g(row_i(M_u))                 (Eq. ``GenVec``)

with ``g`` one of max / mean / diag / mean-of-top-k' (MaxVec, MeanVec, DiagVec, TopKVec), plus
UpperVec, the upper bound of the analysis section (Eq. ``ineq``).  ``M_u`` is never formed: row
``i`` of ``M_u`` is ``h'_i * h'`` with ``eps`` added at position ``i``, so every operator reads
``h'`` in O(k) (O(k k') for TopKVec) per node.

Two forms are offered for each operator:

* ``exact=True``: ``g`` applied to the true rows of ``M_u``, for any sign of ``h'`` and with ``eps``
  on the diagonal.  For ``h'_i < 0`` the largest entry of row ``i`` is ``h'_i * min(h')``, not
  ``h'_i * max(h')``; the diagonal entry ``h'_i^2 + eps`` may win; both are handled.
* ``exact=False``: the paper's implementation note (section "Implementation details"), i.e.
  ``h' * max(h')``, ``h' * mean(h')``, ``h' * mean(top_k'(h'))`` and ``h' * h'``, with ``eps``
  dropped.  It equals the exact form wherever ``h' >= 0`` and ``eps = 0``.
"""

from __future__ import annotations

from typing import Final

import torch
from torch import Tensor

#: The GenVec operators by name (``summarize=``): MaxVec, MeanVec, DiagVec, TopKVec and
#: UpperVec, the bound of the analysis section.
SUMMARIZERS: Final[tuple[str, ...]] = ("max", "mean", "diag", "topk", "upper")
_ALIASES: Final[dict[str, str]] = {
    "maxvec": "max",
    "meanvec": "mean",
    "diagvec": "diag",
    "topkvec": "topk",
    "uppervec": "upper",
}


def canonical_summarizer(name: str) -> str:
    """Map a user-facing name (``"max"``, ``"MaxVec"``, ...) to one of :data:`SUMMARIZERS`."""
    key = name.lower().replace("-", "").replace("_", "")
    key = _ALIASES.get(key, key)
    if key not in SUMMARIZERS:
        raise ValueError(
            f"unknown GenVec summarizer {name!r}; choose one of {', '.join(SUMMARIZERS)}"
        )
    return key


def _max_excluding_self(h: Tensor, largest: bool) -> Tensor:
    """For every channel i, the max (or min) of h over channels j != i.  Shape [N, k]."""
    k = h.size(-1)
    if k == 1:
        fill = float("-inf") if largest else float("inf")
        return torch.full_like(h, fill)
    top2, idx2 = torch.topk(h, 2, dim=-1, largest=largest)
    channel = torch.arange(k, device=h.device)
    is_arg = channel.view(1, k) == idx2[:, :1]
    return torch.where(is_arg, top2[:, 1:2], top2[:, 0:1])


def max_vec(h: Tensor, eps: float = 0.0, exact: bool = True) -> Tensor:
    """MaxVec: ``max_j M_ij``.  ``h``: [N, k] -> [N, k]."""
    if not exact:
        return h * h.max(dim=-1, keepdim=True).values
    off_hi = _max_excluding_self(h, largest=True)
    off_lo = _max_excluding_self(h, largest=False)
    # h_i * h_j is maximised by the largest h_j when h_i >= 0 and by the smallest when h_i < 0.
    off_diag = torch.where(h >= 0, h * off_hi, h * off_lo)
    if h.size(-1) == 1:
        off_diag = torch.full_like(h, float("-inf"))
    return torch.maximum(off_diag, h * h + eps)


def mean_vec(h: Tensor, eps: float = 0.0, exact: bool = True) -> Tensor:
    """MeanVec: ``mean_j M_ij = h_i * mean(h) + eps / k``.  ``h``: [N, k] -> [N, k]."""
    out = h * h.mean(dim=-1, keepdim=True)
    return out + eps / h.size(-1) if exact else out


def diag_vec(h: Tensor, eps: float = 0.0, exact: bool = True) -> Tensor:
    """DiagVec: ``M_ii = h_i^2 + eps``.  ``h``: [N, k] -> [N, k]."""
    return h * h + eps if exact else h * h


def topk_vec(h: Tensor, k_top: int = 3, eps: float = 0.0, exact: bool = True) -> Tensor:
    """TopKVec: mean of the ``k_top`` largest entries of each row of ``M``.  [N, k] -> [N, k].

    Exact form: the ``k_top`` largest entries of row i are among ``h_i * (k_top + 1 extreme
    values of h)`` (largest ones if ``h_i >= 0``, smallest ones otherwise) with channel i itself
    replaced by the diagonal entry ``h_i^2 + eps``; so ``k_top + 2`` candidates per entry suffice.
    """
    k = h.size(-1)
    if not 1 <= k_top <= k:
        raise ValueError(f"TopKVec needs 1 <= k_top <= k, got k_top={k_top} with k={k}")
    if not exact:
        return h * torch.topk(h, k_top, dim=-1).values.mean(dim=-1, keepdim=True)
    c = min(k_top + 1, k)
    hi_val, hi_idx = torch.topk(h, c, dim=-1, largest=True)  # [N, c]
    lo_val, lo_idx = torch.topk(h, c, dim=-1, largest=False)
    positive = (h >= 0).unsqueeze(-1)  # [N, k, 1]
    partner = torch.where(positive, hi_val.unsqueeze(1), lo_val.unsqueeze(1))  # [N, k, c]
    partner_idx = torch.where(positive, hi_idx.unsqueeze(1), lo_idx.unsqueeze(1))
    cand = h.unsqueeze(-1) * partner
    channel = torch.arange(k, device=h.device).view(1, k, 1)
    cand = cand.masked_fill(partner_idx == channel, float("-inf"))  # j == i goes in as diagonal
    cand = torch.cat([cand, (h * h + eps).unsqueeze(-1)], dim=-1)
    return torch.topk(cand, k_top, dim=-1).values.mean(dim=-1)


def upper_vec(h: Tensor, eps: float = 0.0, exact: bool = True) -> Tensor:
    """UpperVec (analysis section, Eq. ``ineq``): ``h_i * (1 - prod_j (1 - h_j))``.

    The bound is stated for ``h_j = p_j`` in [0, 1] (probabilities of a filter response); it is
    applied to ``h`` as given, so callers who want the probabilistic reading keep ``h`` in [0, 1].
    ``eps`` and ``exact`` do not apply (the operator is defined on ``h`` directly); they are
    accepted for a uniform signature.
    """
    del eps, exact
    return h * (1.0 - torch.prod(1.0 - h, dim=-1, keepdim=True))


def genvec(
    h: Tensor,
    summarize: str = "max",
    *,
    eps: float = 0.0,
    exact: bool = True,
    k_top: int = 3,
) -> Tensor:
    """``GenVec(h h^T + eps I)`` row-summarised without forming the outer product.

    Args:
        h: projected node features ``W h_u``, shape [N, k] (any leading shape is flattened).
        summarize: ``"max" | "mean" | "diag" | "topk" | "upper"`` (or ``MaxVec`` style names).
        eps: the ``eps`` of ``M = h h^T + eps I``.
        exact: exact definition (True) or the paper's fast form (False); see module docs.
        k_top: ``k'`` of TopKVec (the paper uses 3).

    Returns:
        Tensor of the same shape as ``h``.
    """
    name = canonical_summarizer(summarize)
    shape = h.shape
    flat = h.reshape(-1, shape[-1])
    if name == "max":
        out = max_vec(flat, eps, exact)
    elif name == "mean":
        out = mean_vec(flat, eps, exact)
    elif name == "diag":
        out = diag_vec(flat, eps, exact)
    elif name == "topk":
        out = topk_vec(flat, k_top, eps, exact)
    else:
        out = upper_vec(flat, eps, exact)
    return out.reshape(shape)


def genvec_reference(h: Tensor, summarize: str, *, eps: float = 0.0, k_top: int = 3) -> Tensor:
    """Slow reference: materialise ``M = h h^T + eps I`` per node and summarise its rows.

    Only for tests and documentation: O(N k^2) memory.
    """
    name = canonical_summarizer(summarize)
    k = h.size(-1)
    m = h.unsqueeze(-1) * h.unsqueeze(-2) + eps * torch.eye(k, dtype=h.dtype, device=h.device)
    if name == "max":
        return m.max(dim=-1).values
    if name == "mean":
        return m.mean(dim=-1)
    if name == "diag":
        return torch.diagonal(m, dim1=-2, dim2=-1)
    if name == "topk":
        return torch.topk(m, k_top, dim=-1).values.mean(dim=-1)
    return h * (1.0 - torch.prod(1.0 - h, dim=-1, keepdim=True))

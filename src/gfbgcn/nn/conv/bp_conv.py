"""BP: bilinear pooling (Eq. ``bipool``) as a graph convolution without forming ``d^2`` features."""

from __future__ import annotations

import torch
from torch import Tensor
from torch.nn import Parameter
from torch.utils.checkpoint import checkpoint
from torch_geometric.nn.inits import glorot, zeros

from gfbgcn.nn.conv.gcn_norm_conv import SecondOrderConv
from gfbgcn.nn.second_norm import (
    L2_FLOOR,
    SecondNorm,
    check_second_norm,
    normalize_second,
)
from gfbgcn.nn.utils import chunked

__all__ = ["BPConv", "upper_norm", "vec_upper"]


def upper_norm(x: Tensor, eps: float) -> Tensor:
    """``||vec_upper(x x^T + eps I)||_2`` per row of ``x`` without forming it.  [N, d] -> [N, 1]."""
    sq = x * x
    s2 = sq.sum(-1, keepdim=True)
    off = (s2 * s2 - (sq * sq).sum(-1, keepdim=True)) / 2  # sum_{i<j} x_i^2 x_j^2
    return torch.sqrt(off + ((sq + eps) ** 2).sum(-1, keepdim=True))


def vec_upper(m: Tensor) -> Tensor:
    """Upper triangle (diagonal included) in ``torch.triu_indices`` order.

    ``m``: [..., d, d] -> [..., d(d+1)/2]; the ``vec`` of Eq. ``bipool``.
    """
    d = m.size(-1)
    row, col = torch.triu_indices(d, d, device=m.device)
    return m[..., row, col]


class BPConv(SecondOrderConv):
    r"""Bilinear pooling layer (Eq. ``bipool``), without forming ``d^2`` features per node.

    .. math::
        \mathbf{x}'_v = \mathbf{W} \sum_u \hat a_{vu}\,
        \mathrm{vec}_{\mathrm{upper}}(\mathbf{x}_u \mathbf{x}_u^\top + \epsilon \mathbf{I})
        + \mathbf{b},\qquad \mathbf{W} \in \mathbb{R}^{out \times d(d+1)/2}

    Because ``W`` is linear, channel ``c`` of ``W vec_upper(x x^T + eps I)`` equals
    ``x^T U_c x + eps tr(U_c)`` with ``U_c`` the upper-triangular ``d x d`` matrix holding row ``c``
    of ``W``; it is evaluated per node (chunks of ``chunk_size`` nodes, O(chunk out d) memory)
    and only the ``out``-wide result is aggregated.  :meth:`materialized_node_features` is the
    literal form, for tests.

    Args:
        in_channels: ``d``.
        out_channels: output size.
        eps: ``epsilon`` (default ``1e-3``).
        chunk_size: nodes per chunk (``None``: all at once).
        second_norm: normalisation ``N`` of each node's ``d(d+1)/2`` features before ``W`` (the
            paper has none: default ``"none"``, Eq. ``bipool`` bit for bit; see
            :func:`gfbgcn.nn.second_norm.normalize_second`):

            .. math::
                \mathbf{x}'_v = \mathbf{W} \sum_u \hat a_{vu}\, s\,
                N\big(\mathrm{vec}_{\mathrm{upper}}(\mathbf{x}_u \mathbf{x}_u^\top
                + \epsilon \mathbf{I})\big) + \mathbf{b}

            ``"l2"`` keeps the per-node quadratic form (no ``d^2`` features): the norm is
            ``sqrt(((sum_i x_i^2)^2 - sum_i x_i^4) / 2 + sum_i (x_i^2 + eps)^2)``.  ``"power"``
            and ``"power-l2"`` form the features chunk by chunk (recomputed in the backward
            pass, so memory stays O(chunk d^2)); they cost several times the default.
        second_scale: ``s`` (ignored with ``"none"``).
        cached, add_self_loops, normalize, bias: as :class:`GFBConv`.

    Cost: O(N out d^2) time; parameters ``out d(d+1)/2`` (+ bias).

    Shapes:
        - **input:** ``[N, d]`` and a graph as :class:`~gfbgcn.nn.conv.GCNNormConv` takes it
        - **output:** ``[N, out_channels]``
    """

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        eps: float = 1e-3,
        chunk_size: int | None = 1024,
        second_norm: SecondNorm = "none",
        second_scale: float = 1.0,
        cached: bool = False,
        add_self_loops: bool | None = None,
        normalize: bool = True,
        bias: bool = True,
        **kwargs,
    ) -> None:
        super().__init__(
            in_channels, out_channels, cached=cached, add_self_loops=add_self_loops,
            normalize=normalize, bias=bias, **kwargs,
        )
        self.eps = float(eps)
        self.chunk_size = chunk_size
        self.second_norm = check_second_norm(second_norm)
        self.second_scale = float(second_scale)
        n_upper = in_channels * (in_channels + 1) // 2
        self.weight = Parameter(torch.empty(out_channels, n_upper))  # W of Eq. bipool
        row, col = torch.triu_indices(in_channels, in_channels)
        self.register_buffer("_triu_row", row, persistent=False)
        self.register_buffer("_triu_col", col, persistent=False)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Glorot ``W``, zero bias; clears the adjacency cache."""
        super().reset_parameters()
        glorot(self.weight)
        zeros(self.bias)

    def upper_matrices(self) -> Tensor:
        """``U`` [out, d, d]: ``U[c]`` upper-triangular with ``vec_upper(U[c]) = W[c]``."""
        d = self.in_channels
        flat = self._triu_row * d + self._triu_col  # positions of vec_upper in the d*d grid
        u = self.weight.new_zeros(self.out_channels, d * d).index_copy(1, flat, self.weight)
        return u.view(self.out_channels, d, d)

    def node_features(self, x: Tensor) -> Tensor:
        """``x_u^T U_c x_u + eps tr(U_c)`` for every node and channel.  [N, d] -> [N, out].

        With ``second_norm`` the normalised features, see the class docs."""
        if self.second_norm in ("power", "power-l2"):
            return self._normalized_materialized(x)
        u = self.upper_matrices()
        eps_term = self.eps * torch.diagonal(u, dim1=-2, dim2=-1).sum(-1)  # eps tr(U_c), [out]

        def quad(part: Tensor) -> Tensor:
            t = torch.einsum("nd,cde->nce", part, u)  # [n, out, d]
            out = torch.einsum("nce,ne->nc", t, part) + eps_term
            if self.second_norm == "l2":
                out = out * (self.second_scale / upper_norm(part, self.eps).clamp_min(L2_FLOOR))
            return out

        return chunked(quad, x, self.chunk_size)

    def _normalized_materialized(self, x: Tensor) -> Tensor:
        """``W s N(vec_upper(x x^T + eps I))`` with the features formed per chunk (and formed
        again in the backward pass instead of being kept)."""
        d = x.size(-1)
        eye = self.eps * torch.eye(d, dtype=x.dtype, device=x.device)

        def part_features(part: Tensor, weight: Tensor) -> Tensor:
            m = part.unsqueeze(-1) * part.unsqueeze(-2) + eye
            f = normalize_second(m[:, self._triu_row, self._triu_col], self.second_norm,
                                 self.second_scale)
            return f @ weight.t()

        def run(part: Tensor) -> Tensor:
            if torch.is_grad_enabled() and (part.requires_grad or self.weight.requires_grad):
                return checkpoint(part_features, part, self.weight, use_reentrant=False)
            return part_features(part, self.weight)

        return chunked(run, x, self.chunk_size)

    def materialized_node_features(self, x: Tensor) -> Tensor:
        """Reference: ``W vec_upper(x x^T + eps I)`` with the ``d(d+1)/2`` features formed."""
        d = x.size(-1)
        m = x.unsqueeze(-1) * x.unsqueeze(-2) + self.eps * torch.eye(
            d, dtype=x.dtype, device=x.device
        )
        return normalize_second(vec_upper(m), self.second_norm, self.second_scale) \
            @ self.weight.t()

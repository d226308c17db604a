"""FBP: factorized bilinear pooling (Eq. ``fm``) as a graph convolution with a linear read-out."""

from __future__ import annotations

import torch
from torch import Tensor
from torch_geometric.nn.dense.linear import Linear
from torch_geometric.nn.inits import zeros

from gfbgcn.nn.conv.gcn_norm_conv import SecondOrderConv
from gfbgcn.nn.second_norm import SecondNorm, check_second_norm, normalize_second
from gfbgcn.nn.utils import chunked

__all__ = ["FBPConv", "fbp_vectorize"]


def fbp_vectorize(h: Tensor, eps: float = 0.0) -> Tensor:
    """``vec(h h^T + eps I)`` per node (all ``k^2`` entries, row-major).  [N, k] -> [N, k^2]."""
    k = h.size(-1)
    m = h.unsqueeze(-1) * h.unsqueeze(-2)
    if eps:
        m = m + eps * torch.eye(k, dtype=h.dtype, device=h.device)
    return m.reshape(*h.shape[:-1], k * k)


class FBPConv(SecondOrderConv):
    r"""Factorized bilinear pooling layer (Eq. ``fm``) with a linear read-out.

    .. math::
        \mathbf{x}'_v = \mathbf{L} \sum_{u} \hat a_{vu}\,
        \mathrm{vec}(\mathbf{W} \mathbf{x}_u \mathbf{x}_u^\top \mathbf{W}^\top
        + \epsilon \mathbf{I}) + \mathbf{b}

    ``W`` in ``R^{k x d}`` (``k = rank``), ``vec`` keeps all ``k^2`` entries (the paper's
    "vectorized representation of size k^2"), ``L`` in ``R^{out x k^2}`` maps to
    ``out_channels`` (Eq. ``fm`` itself has no read-out; it is needed to reach a class count).
    ``L`` is applied per node before Omega (equal, see
    :class:`~gfbgcn.nn.conv.gcn_norm_conv.SecondOrderConv`).

    Args:
        in_channels: ``d``.
        out_channels: output size.
        rank: ``k``.  Default 16, the paper's running example (16 -> 256 features, section
            "Factorized Bilinear Transformation").
        eps: ``epsilon`` on the diagonal (default ``1e-3``, as :class:`GFBConv`).
        chunk_size: nodes per chunk when forming the ``k^2`` features (``None``: all at once).
        second_norm: normalisation ``N`` of each node's ``k^2`` features before ``L`` (the paper
            has none: default ``"none"``, Eq. ``fm`` bit for bit; ``"power"``, ``"l2"``,
            ``"power-l2"``, see :func:`gfbgcn.nn.second_norm.normalize_second`):

            .. math::
                \mathbf{x}'_v = \mathbf{L} \sum_{u} \hat a_{vu}\, s\,
                N\big(\mathrm{vec}(\mathbf{W} \mathbf{x}_u \mathbf{x}_u^\top \mathbf{W}^\top
                + \epsilon \mathbf{I})\big) + \mathbf{b}

        second_scale: ``s`` (ignored with ``"none"``).
        cached, add_self_loops, normalize, bias: as :class:`GFBConv`.

    Cost: O(N d k + N k^2 out) time, O(chunk k^2) extra memory; parameters ``d k + k^2 out``.

    Shapes:
        - **input:** ``[N, d]`` and a graph as :class:`~gfbgcn.nn.conv.GCNNormConv` takes it
        - **output:** ``[N, out_channels]``
    """

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        rank: int = 16,
        eps: float = 1e-3,
        chunk_size: int | None = 16384,
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
        self.rank = rank
        self.eps = float(eps)
        self.chunk_size = chunk_size
        self.second_norm = check_second_norm(second_norm)
        self.second_scale = float(second_scale)
        self.proj = Linear(in_channels, rank, bias=False, weight_initializer="glorot")  # W
        self.lin = Linear(rank * rank, out_channels, bias=False, weight_initializer="glorot")  # L
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Glorot ``W`` and ``L``, zero bias; clears the adjacency cache."""
        super().reset_parameters()
        self.proj.reset_parameters()
        self.lin.reset_parameters()
        zeros(self.bias)

    def node_features(self, x: Tensor) -> Tensor:
        """``L vec(W x x^T W^T + eps I)``.  [N, d] -> [N, out]."""
        h = self.proj(x)  # W x_u, [N, k]

        def features(part: Tensor) -> Tensor:
            f = fbp_vectorize(part, self.eps)
            if self.second_norm != "none":
                f = normalize_second(f, self.second_norm, self.second_scale)
            return self.lin(f)

        return chunked(features, h, self.chunk_size)

    def __repr__(self) -> str:
        return (
            f"{self.__class__.__name__}({self.in_channels}, {self.out_channels}, "
            f"rank={self.rank})"
        )

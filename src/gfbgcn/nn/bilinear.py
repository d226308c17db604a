"""Second-order baselines of the paper as PyG layers: FBP, BP, CBP and "GCN + Square root".

All four share the calling convention ``layer(x, edge_index, edge_weight=None)``, the GCN
normalisation and caching of :class:`gfbgcn.nn.gfb_conv.GCNNormConv`, and a final bias.

Order of operations.  Each layer is "per-node second-order feature ``phi(x_u)``, GCN aggregation
Omega (Eq. ``gcn_omega``), linear map ``L``".  Omega and ``L`` are both linear and act on
different axes (nodes vs. channels), so ``L(Omega{phi}) = Omega{L(phi)}`` exactly; the layers
apply ``L`` per node first and aggregate the small ``out_channels``-wide result, which never
moves the wide ``phi`` over the edges.  Tests check equality with the literal order.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Optional

import torch
from torch import Tensor
from torch.nn import Parameter
from torch_geometric.nn.dense.linear import Linear
from torch_geometric.nn.inits import glorot, zeros
from torch_geometric.typing import Adj, OptTensor

from gfbgcn.nn.gfb_conv import GCNNormConv

__all__ = [
    "BPConv",
    "CBPConv",
    "FBPConv",
    "SqrtGCNConv",
    "count_sketch",
    "fbp_vectorize",
    "signed_sqrt",
    "tensor_sketch",
    "vec_upper",
]


def _chunked(fn: Callable[[Tensor], Tensor], x: Tensor, chunk_size: Optional[int]) -> Tensor:
    """Apply a row-wise ``fn`` ([n, *] -> [n, *]) over node chunks to bound peak memory."""
    if chunk_size is None or x.size(0) <= chunk_size:
        return fn(x)
    return torch.cat([fn(part) for part in x.split(chunk_size, dim=0)], dim=0)


class _SecondOrderConv(GCNNormConv):
    """Shared forward: ``Omega{node_features(x)} + bias`` (subclasses define node_features)."""

    bias: Optional[Parameter]

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        *,
        cached: bool,
        add_self_loops: Optional[bool],
        normalize: bool,
        bias: bool,
        **kwargs,
    ) -> None:
        super().__init__(
            cached=cached, add_self_loops=add_self_loops, normalize=normalize, **kwargs
        )
        self.in_channels = in_channels
        self.out_channels = out_channels
        if bias:
            self.bias = Parameter(torch.empty(out_channels))
        else:
            self.register_parameter("bias", None)

    def node_features(self, x: Tensor) -> Tensor:  # pragma: no cover - abstract
        """Per-node pre-aggregation features.  [N, in_channels] -> [N, out_channels]."""
        raise NotImplementedError

    def post_aggregate(self, out: Tensor) -> Tensor:
        """Hook applied after Omega and before the bias (identity by default)."""
        return out

    def forward(self, x: Tensor, edge_index: Adj, edge_weight: OptTensor = None) -> Tensor:
        """``x`` [N, in_channels], graph as in :class:`GCNNormConv` -> [N, out_channels]."""
        edge_index, edge_weight = self.normalized_adjacency(
            edge_index, edge_weight, x.size(self.node_dim), x.dtype
        )
        out = self.aggregate_gcn(self.node_features(x), edge_index, edge_weight)  # Omega
        out = self.post_aggregate(out)
        if self.bias is not None:
            out = out + self.bias
        return out


# --------------------------------------------------------------------------------------------
# FBP: factorized bilinear pooling, Eq. fm
# --------------------------------------------------------------------------------------------


def fbp_vectorize(h: Tensor, eps: float = 0.0) -> Tensor:
    """``vec(h h^T + eps I)`` per node (all ``k^2`` entries, row-major).  [N, k] -> [N, k^2]."""
    k = h.size(-1)
    m = h.unsqueeze(-1) * h.unsqueeze(-2)
    if eps:
        m = m + eps * torch.eye(k, dtype=h.dtype, device=h.device)
    return m.reshape(*h.shape[:-1], k * k)


class FBPConv(_SecondOrderConv):
    r"""Factorized bilinear pooling layer (Eq. ``fm``) with a linear read-out.

    .. math::
        x'_v = L \cdot \sum_{u} \hat a_{vu}\, \mathrm{vec}(W x_u x_u^\top W^\top + \epsilon I) + b

    ``W`` in ``R^{k x d}`` (``k = rank``), ``vec`` keeps all ``k^2`` entries (the paper's
    "vectorized representation of size k^2"), ``L`` in ``R^{out x k^2}`` maps to
    ``out_channels`` (Eq. ``fm`` itself has no read-out; it is needed to reach a class count).
    ``L`` is applied per node before Omega (equal, see module docs).

    Args:
        in_channels: ``d``.
        out_channels: output size.
        rank: ``k``.  Default 16, the paper's running example (16 -> 256 features, section
            "Factorized Bilinear Transformation").
        eps: ``epsilon`` on the diagonal (default ``1e-3``, as :class:`GFBConv`).
        chunk_size: nodes per chunk when forming the ``k^2`` features (``None``: all at once).
        cached, add_self_loops, normalize, bias: as :class:`GFBConv`.

    Cost: O(N d k + N k^2 out) time, O(chunk k^2) extra memory; parameters ``d k + k^2 out``.
    Shapes: ``x`` [N, d] -> [N, out_channels].
    """

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        rank: int = 16,
        eps: float = 1e-3,
        chunk_size: Optional[int] = 16384,
        cached: bool = False,
        add_self_loops: Optional[bool] = None,
        normalize: bool = True,
        bias: bool = True,
        **kwargs,
    ) -> None:
        super().__init__(
            in_channels,
            out_channels,
            cached=cached,
            add_self_loops=add_self_loops,
            normalize=normalize,
            bias=bias,
            **kwargs,
        )
        self.rank = rank
        self.eps = float(eps)
        self.chunk_size = chunk_size
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
        return _chunked(lambda part: self.lin(fbp_vectorize(part, self.eps)), h, self.chunk_size)

    def __repr__(self) -> str:
        return (
            f"{self.__class__.__name__}({self.in_channels}, {self.out_channels}, "
            f"rank={self.rank})"
        )


# --------------------------------------------------------------------------------------------
# BP: bilinear pooling, Eq. bipool
# --------------------------------------------------------------------------------------------


def vec_upper(m: Tensor) -> Tensor:
    """Upper triangle (diagonal included) in ``torch.triu_indices`` order.

    ``m``: [..., d, d] -> [..., d(d+1)/2]; the ``vec`` of Eq. ``bipool``.
    """
    d = m.size(-1)
    row, col = torch.triu_indices(d, d, device=m.device)
    return m[..., row, col]


class BPConv(_SecondOrderConv):
    r"""Bilinear pooling layer (Eq. ``bipool``), without forming ``d^2`` features per node.

    .. math::
        x'_v = W \cdot \sum_u \hat a_{vu}\, \mathrm{vec}_{\mathrm{upper}}(x_u x_u^\top + \epsilon I)
        + b,\qquad W \in \mathbb{R}^{out \times d(d+1)/2}

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
        cached, add_self_loops, normalize, bias: as :class:`GFBConv`.

    Cost: O(N out d^2) time; parameters ``out d(d+1)/2`` (+ bias).
    Shapes: ``x`` [N, d] -> [N, out_channels].
    """

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        eps: float = 1e-3,
        chunk_size: Optional[int] = 1024,
        cached: bool = False,
        add_self_loops: Optional[bool] = None,
        normalize: bool = True,
        bias: bool = True,
        **kwargs,
    ) -> None:
        super().__init__(
            in_channels,
            out_channels,
            cached=cached,
            add_self_loops=add_self_loops,
            normalize=normalize,
            bias=bias,
            **kwargs,
        )
        self.eps = float(eps)
        self.chunk_size = chunk_size
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
        """``x_u^T U_c x_u + eps tr(U_c)`` for every node and channel.  [N, d] -> [N, out]."""
        u = self.upper_matrices()
        eps_term = self.eps * torch.diagonal(u, dim1=-2, dim2=-1).sum(-1)  # eps tr(U_c), [out]

        def quad(part: Tensor) -> Tensor:
            t = torch.einsum("nd,cde->nce", part, u)  # [n, out, d]
            return torch.einsum("nce,ne->nc", t, part) + eps_term

        return _chunked(quad, x, self.chunk_size)

    def materialized_node_features(self, x: Tensor) -> Tensor:
        """Reference: ``W vec_upper(x x^T + eps I)`` with the ``d(d+1)/2`` features formed."""
        d = x.size(-1)
        m = x.unsqueeze(-1) * x.unsqueeze(-2) + self.eps * torch.eye(
            d, dtype=x.dtype, device=x.device
        )
        return vec_upper(m) @ self.weight.t()


# --------------------------------------------------------------------------------------------
# CBP: compact bilinear pooling with Tensor Sketch
# --------------------------------------------------------------------------------------------


def count_sketch(x: Tensor, index: Tensor, sign: Tensor, sketch_dim: int) -> Tensor:
    """Count sketch ``C x``: ``(C x)_b = sum_{i: index_i = b} sign_i x_i``.

    ``x`` [N, d], ``index`` [d] (long in ``[0, sketch_dim)``), ``sign`` [d] (+-1) -> [N, D].
    """
    out = x.new_zeros(x.size(0), sketch_dim)
    return out.index_add(1, index, x * sign)


def tensor_sketch(
    x: Tensor,
    index1: Tensor,
    sign1: Tensor,
    index2: Tensor,
    sign2: Tensor,
    sketch_dim: int,
) -> Tensor:
    """Tensor Sketch of ``x x^T``: ``irfft(rfft(C1 x) * rfft(C2 x))``.  [N, d] -> [N, D].

    With independent random hashes/signs, ``<TS(x), TS(y)>`` is an unbiased estimate of
    ``<x x^T, y y^T> = <x, y>^2`` (Pham & Pagh 2013).
    """
    f1 = torch.fft.rfft(count_sketch(x, index1, sign1, sketch_dim), dim=-1)
    f2 = torch.fft.rfft(count_sketch(x, index2, sign2, sketch_dim), dim=-1)
    return torch.fft.irfft(f1 * f2, n=sketch_dim, dim=-1)


class CBPConv(_SecondOrderConv):
    r"""Compact bilinear pooling layer (Tensor Sketch approximation of Eq. ``bipool``).

    .. math::
        x'_v = L \cdot \sum_u \hat a_{vu}\, \mathrm{TS}(x_u) + b,\qquad
        \mathrm{TS}(x) = \mathrm{irfft}(\mathrm{rfft}(C_1 x) \odot \mathrm{rfft}(C_2 x))

    ``C_1, C_2`` are count sketches ``R^d -> R^D`` whose hashes and signs are drawn once from
    ``seed`` and stored as buffers (saved in the state dict, not trained).  ``L`` in
    ``R^{out x D}`` is applied per node before Omega (equal, see module docs).  No
    power/l2 normalisation is added (the paper does not mention one).

    Args:
        in_channels: ``d``.
        out_channels: output size.
        sketch_dim: ``D``.  Default 1024 (about ``d(d+1)/2 / 20`` for ``d = 200``); the feature
            is ``D``-wide per node, so memory is O(N D) during training.
        seed: seed of the hash/sign draw.
        chunk_size: nodes per chunk when sketching (``None``: all at once).
        cached, add_self_loops, normalize, bias: as :class:`GFBConv`.

    Cost: O(N (d + D log D + D out)) time; parameters ``D out`` (+ bias).
    Shapes: ``x`` [N, d] -> [N, out_channels].
    """

    hash1: Tensor
    sign1: Tensor
    hash2: Tensor
    sign2: Tensor

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        sketch_dim: int = 1024,
        seed: int = 0,
        chunk_size: Optional[int] = 8192,
        cached: bool = False,
        add_self_loops: Optional[bool] = None,
        normalize: bool = True,
        bias: bool = True,
        **kwargs,
    ) -> None:
        super().__init__(
            in_channels,
            out_channels,
            cached=cached,
            add_self_loops=add_self_loops,
            normalize=normalize,
            bias=bias,
            **kwargs,
        )
        self.sketch_dim = sketch_dim
        self.seed = seed
        self.chunk_size = chunk_size
        gen = torch.Generator().manual_seed(seed)
        for name in ("1", "2"):
            index = torch.randint(sketch_dim, (in_channels,), generator=gen)
            sign = torch.randint(2, (in_channels,), generator=gen).to(torch.get_default_dtype())
            self.register_buffer("hash" + name, index)
            self.register_buffer("sign" + name, 2.0 * sign - 1.0)
        self.lin = Linear(sketch_dim, out_channels, bias=False, weight_initializer="glorot")
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Glorot ``L``, zero bias, clears the cache; the hashes stay fixed."""
        super().reset_parameters()
        self.lin.reset_parameters()
        zeros(self.bias)

    def sketch(self, x: Tensor) -> Tensor:
        """``TS(x)`` per node.  [N, d] -> [N, D]."""
        return tensor_sketch(
            x, self.hash1, self.sign1.to(x.dtype), self.hash2, self.sign2.to(x.dtype),
            self.sketch_dim,
        )

    def node_features(self, x: Tensor) -> Tensor:
        """``L TS(x_u)``.  [N, d] -> [N, out]."""
        return _chunked(lambda part: self.lin(self.sketch(part)), x, self.chunk_size)

    def __repr__(self) -> str:
        return (
            f"{self.__class__.__name__}({self.in_channels}, {self.out_channels}, "
            f"sketch_dim={self.sketch_dim})"
        )


# --------------------------------------------------------------------------------------------
# Text GCN + Square root
# --------------------------------------------------------------------------------------------


def signed_sqrt(z: Tensor, delta: float = 1e-2) -> Tensor:
    r"""Smooth signed square root ``sign(z) (sqrt(|z| + delta) - sqrt(delta))``.

    Written as ``z / (sqrt(|z| + delta) + sqrt(delta))`` (algebraically identical), which is
    odd, zero at 0, and continuously differentiable with slope ``1 / (2 sqrt(delta))`` at 0 and
    autograd returns that slope at exactly 0 (the ``sign`` form would give 0 there).  For
    ``|z| >> delta`` it is ``sign(z) sqrt(|z|)`` up to ``sqrt(delta)``.  Any shape.
    """
    root = math.sqrt(delta)
    return z / (torch.sqrt(z.abs() + delta) + root)


class SqrtGCNConv(_SecondOrderConv):
    r"""GCN layer followed by signed square-root (power) normalisation ("Text GCN + Square root").

    .. math::
        x'_v = \mathrm{ssqrt}\Big(\sum_u \hat a_{vu} W x_u\Big) + b,\qquad
        \mathrm{ssqrt}(z) = \mathrm{sign}(z)\big(\sqrt{|z| + \delta} - \sqrt{\delta}\big)

    The paper names the baseline without defining it; this is the standard power normalisation
    of pooled second-order features applied to the pooled GCN response, element-wise, before
    the bias.  The ``delta`` shift makes it differentiable at 0 (plain ``sqrt`` has infinite
    slope there) and the ``- sqrt(delta)`` keeps it odd and zero at 0; see :func:`signed_sqrt`.

    Args:
        in_channels, out_channels: as ``GCNConv``.
        delta: smoothing constant (default ``1e-2``: slope at 0 is 5, and the result is within
            0.1 of ``sign(z) sqrt(|z|)`` everywhere).
        cached, add_self_loops, normalize, bias: as :class:`GFBConv`.

    Parameters: exactly those of ``GCNConv``.  Shapes: ``x`` [N, d] -> [N, out_channels].
    """

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        delta: float = 1e-2,
        cached: bool = False,
        add_self_loops: Optional[bool] = None,
        normalize: bool = True,
        bias: bool = True,
        **kwargs,
    ) -> None:
        super().__init__(
            in_channels,
            out_channels,
            cached=cached,
            add_self_loops=add_self_loops,
            normalize=normalize,
            bias=bias,
            **kwargs,
        )
        if delta <= 0:
            raise ValueError(f"delta must be > 0, got {delta}")
        self.delta = float(delta)
        self.lin = Linear(in_channels, out_channels, bias=False, weight_initializer="glorot")
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Glorot ``W``, zero bias; clears the adjacency cache."""
        super().reset_parameters()
        self.lin.reset_parameters()
        zeros(self.bias)

    def node_features(self, x: Tensor) -> Tensor:
        """``W x_u``.  [N, d] -> [N, out]."""
        return self.lin(x)

    def post_aggregate(self, out: Tensor) -> Tensor:
        """Signed square root of the aggregated response."""
        return signed_sqrt(out, self.delta)

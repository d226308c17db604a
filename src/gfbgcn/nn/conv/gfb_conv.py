"""GFB-GCN: graph convolution with generalized factorized bilinear aggregation (Eq. ``cfm``).

Paper: Zhu & Koniusz, *Graph Convolutional Network with Generalized Factorized Bilinear
Aggregation* (https://arxiv.org/abs/2107.11666).
"""

from __future__ import annotations

from torch import Tensor
from torch_geometric.nn.dense.linear import Linear
from torch_geometric.nn.inits import zeros

from gfbgcn.nn.conv.gcn_norm_conv import SecondOrderConv
from gfbgcn.nn.gfb import GFBMixin
from gfbgcn.nn.second_norm import SecondNorm

__all__ = ["GFBConv"]


class GFBConv(GFBMixin, SecondOrderConv):
    r"""Generalized Factorized Bilinear graph convolution (GFB-GCN layer, Eq. ``cfm``).

    .. math::
        \mathbf{h}'_u = \mathbf{W} \mathbf{x}_u,\qquad
        \mathbf{z}_u = \mathbf{h}'_u + \lambda\, \mathrm{GenVec}(\mathbf{h}'_u
        \mathbf{h}'^\top_u + \epsilon \mathbf{I}),\qquad
        \mathbf{x}'_v = \sum_{u \in \tilde N(v)} \hat a_{vu} \mathbf{z}_u + \mathbf{b}

    with ``W`` in ``R^{k x d}`` (``k = out_channels``, ``d = in_channels``), one learnable scalar
    ``lambda`` per layer and ``\hat a`` the GCN-normalised adjacency (Eq. ``gcn_omega``).  As in
    the appendix ("Relationship to Factorization Machines", ``F = lambda W``) the second-order
    term reuses ``W``: the layer has exactly one parameter more than ``GCNConv``.  ``GenVec`` is
    evaluated once per node in O(k) (O(k k') for TopKVec) by :func:`gfbgcn.nn.genvec.genvec`,
    never forming the k x k matrix, and is aggregated after (Omega is linear, so aggregating
    ``z`` equals aggregating the two terms of Eq. ``cfm`` separately).

    Args:
        in_channels: ``d``, size of each input sample.
        out_channels: ``k``, size of each output sample (and of ``h'``).
        summarize: GenVec row summary ``g``: ``"max"`` (MaxVec, the paper's best), ``"mean"``,
            ``"diag"``, ``"topk"`` or ``"upper"`` (UpperVec, the bound of Eq. ``ineq``).
        exact: ``True`` applies ``g`` to the true rows of ``M = h'h'^T + eps I`` for any sign of
            ``h'`` (for ``h'_i < 0`` the MaxVec row maximum is ``h'_i min(h')`` or the diagonal
            ``h'_i^2 + eps``); ``False`` uses the paper's fast form ``h' * max(h')`` etc. (section
            "Implementation details"), equal to the exact one only where ``h' >= 0`` and
            ``eps = 0``.  Which form validates better depends on the data (``docs/layers.md``,
            "Exact vs. fast GenVec"): choose it on validation.
        eps: ``epsilon`` of ``M``.  Default ``1e-3``: the usual small ridge of second-order
            pooling; it only shifts DiagVec/MeanVec by a constant and floors the MaxVec/TopKVec
            diagonal at ``eps``, is well above float32 resolution for O(1) features, and stays
            below ``h'_i^2`` for ``|h'_i| > 0.03``.  Ignored by the fast form and by UpperVec.
        lambda_init: initial ``lambda``.  Default ``1.0``: the layer starts as Eq. ``cfm`` with an
            even first/second-order trade-off (and non-zero gradient through both paths); with
            glorot-initialised ``W`` and O(1) inputs ``h'`` is O(1), so neither term dominates.
            ``0.0`` would start exactly at ``GCNConv``.
        k_top: ``k'`` of TopKVec (the paper uses 3); must satisfy ``1 <= k_top <= k``.
        second_norm: normalisation ``N`` of the GenVec term per node, before ``lambda`` (the
            paper has none: default ``"none"``, the layer above bit for bit); ``"power"``,
            ``"l2"`` or ``"power-l2"`` as in bilinear pooling
            (:func:`gfbgcn.nn.second_norm.normalize_second`):

            .. math::
                \mathbf{z}_u = \mathbf{h}'_u + \lambda\, s\, N\big(\mathrm{GenVec}(
                \mathbf{h}'_u \mathbf{h}'^\top_u + \epsilon \mathbf{I})\big),\quad
                N \in \{\mathrm{power}, \mathrm{l2}, \mathrm{l2} \circ \mathrm{power}\}

        second_scale: ``s``, the multiplier after ``N`` (ignored with ``"none"``).
        cached, add_self_loops, normalize: see :class:`~gfbgcn.nn.conv.GCNNormConv`.
        bias: learn an additive bias ``b`` (applied after aggregation, as in ``GCNConv``).

    Shapes:
        - **input:** node features ``[N, d]``, ``edge_index`` ``[2, E]`` or a sparse ``[N, N]``
          adjacency (transposed), ``edge_weight`` ``[E]`` (optional)
        - **output:** node features ``[N, k]``
    """

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        summarize: str = "max",
        exact: bool = True,
        eps: float = 1e-3,
        lambda_init: float = 1.0,
        k_top: int = 3,
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
        # W in R^{k x d} of Eq. cfm, shared by the first- and second-order terms (F = lambda W).
        self.lin = Linear(in_channels, out_channels, bias=False, weight_initializer="glorot")
        self.init_gfb(out_channels, summarize, eps, exact, k_top, lambda_init,
                      second_norm=second_norm, second_scale=second_scale)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Glorot ``W``, ``lambda = lambda_init``, zero bias; clears the adjacency cache."""
        super().reset_parameters()
        self.lin.reset_parameters()
        self.reset_lambda()
        zeros(self.bias)

    def node_features(self, x: Tensor) -> Tensor:
        """Per-node ``z_u = h'_u + lambda GenVec(h'_u h'_u^T + eps I)``.  [N, d] -> [N, k]."""
        return self.gfb(self.lin(x))  # h'_u = W x_u, then Eq. cfm's per-node term

    def __repr__(self) -> str:
        return (
            f"{self.__class__.__name__}({self.in_channels}, {self.out_channels}, "
            f"{self.gfb_repr()})"
        )

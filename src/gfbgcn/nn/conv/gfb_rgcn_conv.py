"""GFB-R-GCN: relational graph convolution with generalized factorized bilinear messages.

R-GCN (Schlichtkrull et al. 2018; supplement, section "Entity Classification"):

    h_i' = sigma( sum_r sum_{j in N_i^r} (1 / c_{i,r}) W_r h_j  +  W_0 h_i )          (R-GCN)

GFB-R-GCN adds, inside the relation sums, the compact vectorization of the factorized bilinear
auto-correlation of every message:

    h_i' = sigma( sum_r sum_{j in N_i^r} (1 / c_{i,r}) [ W_r h_j + lambda_l GenVec(M_{j,r}) ]
                  + W_0 h_i ),       M_{j,r} = W_r h_j h_j^T W_r^T                     (GFB-R-GCN)

``GenVec`` (Eq. ``GenVec``) is evaluated from ``z = W_r h_j`` without forming ``M`` (see
:func:`gfbgcn.nn.genvec.genvec`); with the paper's MeanVec it is ``z * mean(z)``, i.e. every message
``z`` is gated channel-wise by ``1 + lambda * mean(z)``.  ``lambda_l`` is one learnable scalar per
layer.  The root (self-connection) term ``W_0 h_i`` is left first-order, as in the GFB-R-GCN
equation, where GenVec sits inside the relation sums only.

Relation handling (basis / block-diagonal decomposition, featureless inputs, the per-relation
mean ``c_{i,r} = |N_i^r|``) is PyG's: the layer subclasses
:class:`~torch_geometric.nn.conv.FastRGCNConv` (itself an ``RGCNConv`` with the same parameters,
computing one message per edge) and only wraps its ``message``.  The per-edge form is needed
because GenVec is not linear: ``RGCNConv`` aggregates ``h_j`` first and multiplies by ``W_r``
afterwards, which is the same thing only when ``lambda = 0``.  It is also much faster on
featureless graphs with many relations: ``RGCNConv``'s loop selects ``W_r[x]`` once per
relation, and every such select allocates a zero gradient of the whole ``[R, N, k]`` weight in
the backward pass (O(R^2 N k) per step; the measured cost is in ``docs/layers.md``,
"Measurements behind design choices").
"""

from __future__ import annotations

from typing import Any

from torch import Tensor
from torch_geometric.nn.conv import FastRGCNConv

from gfbgcn.nn.gfb import GFBMixin

__all__ = ["GFBRGCNConv"]


class GFBRGCNConv(GFBMixin, FastRGCNConv):
    r"""R-GCN layer whose messages carry ``lambda * GenVec(W_r h_j h_j^T W_r^T)``.

    .. math::
        \mathbf{h}'_i = \sum_{r \in R} \sum_{j \in N_i^r} \frac{1}{c_{i,r}}
        \big[\mathbf{W}_r \mathbf{h}_j + \lambda\, \mathrm{GenVec}(\mathbf{W}_r \mathbf{h}_j
        \mathbf{h}_j^\top \mathbf{W}_r^\top + \epsilon \mathbf{I})\big]
        + \mathbf{W}_0 \mathbf{h}_i + \mathbf{b}

    Args:
        in_channels: input size, or the number of nodes for featureless graphs (``x=None``:
            node ``j``'s "feature" ``W_r h_j`` is row ``j`` of ``W_r``, as in RGCNConv).
        out_channels: output size ``k``.
        num_relations: number of relation types ``|R|``.
        num_bases: basis decomposition ``W_r = sum_b a_{rb} V_b`` (RGCNConv's ``num_bases``).
        num_blocks: block-diagonal decomposition (float inputs only, as in RGCNConv).
        aggr: aggregation inside one relation: ``"mean"`` (``c_{i,r} = |N_i^r|``) or ``"add"``.
        root_weight: add ``W_0 h_i``.
        bias: add a learnable bias.
        summarize: GenVec row summarizer ``"mean"`` (paper's choice), ``"max"``, ``"diag"``,
            ``"topk"`` or ``"upper"``.
        eps: ``eps`` of ``M + eps I`` (0 in the GFB-R-GCN equation).
        exact: exact GenVec (True) or the paper's fast form (see :mod:`gfbgcn.nn.genvec`).
        k_top: ``k'`` of TopKVec.
        lambda_init: initial value of the learnable ``lambda_l``.
        **kwargs: passed on to :class:`RGCNConv` / ``MessagePassing``.

    Shapes:
        - **input:** node features ``[N, in_channels]`` float, or ``None`` / ``[N]`` long node
          ids (featureless), or a ``(x_src, x_dst)`` tuple; ``edge_index`` ``[2, E]`` (a dense
          tensor: ``FastRGCNConv`` needs ``edge_type`` per edge); ``edge_type`` ``[E]``
        - **output:** ``[N_dst, k]``
    """

    def __init__(
        self,
        in_channels: int | tuple[int, int],
        out_channels: int,
        num_relations: int,
        num_bases: int | None = None,
        num_blocks: int | None = None,
        aggr: str = "mean",
        root_weight: bool = True,
        is_sorted: bool = False,
        bias: bool = True,
        *,
        summarize: str = "mean",
        eps: float = 0.0,
        exact: bool = True,
        k_top: int = 3,
        lambda_init: float = 1.0,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            in_channels,
            out_channels,
            num_relations,
            num_bases=num_bases,
            num_blocks=num_blocks,
            aggr=aggr,
            root_weight=root_weight,
            is_sorted=is_sorted,
            bias=bias,
            **kwargs,
        )
        self.init_gfb(out_channels, summarize, eps, exact, k_top, lambda_init)

    def reset_parameters(self) -> None:
        """Reset the R-GCN weights (PyG) and ``lambda`` to ``lambda_init``."""
        super().reset_parameters()
        self.reset_lambda()

    def message(self, x_j: Tensor, edge_type: Tensor, edge_index_j: Tensor) -> Tensor:
        """Per-edge message ``W_{r_e} h_{j_e} + lambda GenVec(...)``: ``[E, out_channels]``.

        ``FastRGCNConv.message`` gives ``z_e = W_{r_e} h_{j_e}`` (a row of ``W_r`` for
        featureless inputs; basis / block decompositions applied); ``FastRGCNConv.aggregate``
        then sums ``z_e / c_{i,r}`` with ``c_{i,r} = |N_i^r|`` counted per relation.
        """
        z = super().message(x_j, edge_type, edge_index_j)
        return self.gfb(z)  # z + lambda GenVec(z z^T + eps I)

    def __repr__(self) -> str:
        return (
            f"{self.__class__.__name__}({self.in_channels}, {self.out_channels}, "
            f"num_relations={self.num_relations}, {self.gfb_repr()})"
        )

"""Text SGC (WAP): featureless SGC on the Text GCN graph, a baseline of Table "Test accuracy"."""

from __future__ import annotations

import torch
from torch import Tensor
from torch.nn import Parameter
from torch_geometric.nn.inits import glorot, zeros
from torch_geometric.typing import Adj, OptTensor

from gfbgcn.nn.conv.gcn_norm_conv import GCNNormConv

__all__ = ["TextSGC", "require_featureless"]


def require_featureless(x: Tensor | None, name: str) -> None:
    """The text models take identity features implicitly: ``x`` must be ``None``."""
    if x is not None:
        raise ValueError(
            f"{name} is featureless (identity input features); pass x=None, got a tensor"
        )


class TextSGC(GCNNormConv):
    r"""Featureless SGC on the text graph: ``logits = \hat A^K W + b`` (Text SGC, WAP).

    .. math::
        \mathbf{Z} = \hat{\mathbf{A}}^K \mathbf{I} \mathbf{W} + \mathbf{b}
        = \hat{\mathbf{A}}^K \mathbf{W} + \mathbf{b}

    With identity features ``X = I`` (one-hot word and document ids), SGC's ``\hat A^K X W`` is
    ``\hat A^K W``; ``W`` is a learnable ``[num_nodes, num_classes]`` table.  It is evaluated
    right to left as ``K`` sparse products with the ``C``-column matrix (O(K E C)), never forming
    ``\hat A^2`` or the identity.  "WAP" (weighted average pooling) is Text GCN's aggregation,
    the GCN-normalised weighted adjacency (Eq. ``gcn_omega``).

    Args:
        num_nodes: number of graph nodes (words + documents).
        num_classes: ``C``.
        K: number of propagation steps (default 2, as SGC).
        cached, add_self_loops, normalize: see :class:`~gfbgcn.nn.conv.GCNNormConv`.
        bias: learn a bias ``b`` [C].

    Shapes:
        - **input:** ``x=None`` and a graph with ``num_nodes`` nodes
        - **output:** logits ``[num_nodes, C]``
    """

    def __init__(
        self,
        num_nodes: int,
        num_classes: int,
        K: int = 2,
        cached: bool = False,
        add_self_loops: bool | None = None,
        normalize: bool = True,
        bias: bool = True,
        **kwargs,
    ) -> None:
        super().__init__(
            cached=cached, add_self_loops=add_self_loops, normalize=normalize, **kwargs
        )
        if K < 1:
            raise ValueError(f"K must be >= 1, got {K}")
        self.num_nodes = num_nodes
        self.num_classes = num_classes
        self.K = K
        self.weight = Parameter(torch.empty(num_nodes, num_classes))  # W = I W
        if bias:
            self.bias = Parameter(torch.empty(num_classes))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Glorot ``W``, zero bias; clears the adjacency cache."""
        super().reset_parameters()
        glorot(self.weight)
        zeros(self.bias)

    def forward(
        self, x: Tensor | None, edge_index: Adj, edge_weight: OptTensor = None
    ) -> Tensor:
        """``x`` must be ``None``; returns ``\\hat A^K W + b`` [num_nodes, C]."""
        require_featureless(x, type(self).__name__)
        edge_index, edge_weight = self.normalized_adjacency(
            edge_index, edge_weight, self.num_nodes, self.weight.dtype
        )
        out: Tensor = self.weight
        for _ in range(self.K):  # \hat A (\hat A ... (\hat A W))
            out = self.aggregate_gcn(out, edge_index, edge_weight)
        if self.bias is not None:
            out = out + self.bias
        return out

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({self.num_nodes}, {self.num_classes}, K={self.K})"

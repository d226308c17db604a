"""GIN on a weighted graph: the neighbour sum of GIN replaced by the GCN-normalised (WAP) sum."""

from __future__ import annotations

import torch
from torch import Tensor
from torch.nn import Module, Parameter
from torch_geometric.nn.inits import reset
from torch_geometric.typing import Adj, OptTensor

from gfbgcn.nn.conv.gcn_norm_conv import GCNNormConv

__all__ = ["WeightedGINConv"]


class WeightedGINConv(GCNNormConv):
    r"""GIN layer on a weighted graph (the layer of Text GIN, WAP).

    .. math::
        \mathbf{x}'_v = \mathrm{MLP}\Big((1 + \epsilon)\, \mathbf{x}_v
        + \sum_{u \in \tilde N(v)} \hat a_{vu} \mathbf{x}_u\Big)

    PyG's ``GINConv`` sums neighbours unweighted; here the neighbour sum is the WAP aggregation
    (GCN-normalised edge weights, self-loops added by default so it is exactly the Text GCN
    aggregation) and GIN's ``(1 + eps) h_v`` is added on top.

    Args:
        nn: the MLP, mapping [N, F_in] -> [N, F_out] (e.g. :class:`torch_geometric.nn.MLP`).
        eps: initial ``eps``.
        train_eps: learn ``eps``.
        cached, add_self_loops, normalize: see :class:`GCNNormConv`.

    Shapes:
        - **input:** ``[N, F_in]`` and a graph as :class:`GCNNormConv` takes it
        - **output:** ``[N, F_out]``
    """

    def __init__(
        self,
        nn: Module,
        eps: float = 0.0,
        train_eps: bool = False,
        cached: bool = False,
        add_self_loops: bool | None = None,
        normalize: bool = True,
        **kwargs,
    ) -> None:
        super().__init__(
            cached=cached, add_self_loops=add_self_loops, normalize=normalize, **kwargs
        )
        self.nn = nn
        self.initial_eps = float(eps)
        if train_eps:
            self.eps = Parameter(torch.empty(()))
        else:
            self.register_buffer("eps", torch.empty(()))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Reset the MLP and ``eps``; clears the adjacency cache."""
        super().reset_parameters()
        reset(self.nn)
        with torch.no_grad():
            self.eps.fill_(self.initial_eps)

    def forward(self, x: Tensor, edge_index: Adj, edge_weight: OptTensor = None) -> Tensor:
        """``x`` [N, F_in] -> [N, F_out]."""
        edge_index, edge_weight = self.normalized_adjacency(
            edge_index, edge_weight, x.shape[self.node_dim], x.dtype
        )
        neighbours = self.aggregate_gcn(x, edge_index, edge_weight)  # WAP: sum_u a_vu h_u
        return self.nn((1.0 + self.eps) * x + neighbours)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(nn={self.nn})"

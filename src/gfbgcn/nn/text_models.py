"""Featureless text-graph baselines of Table "Test accuracy": Text SGC (WAP) and Text GIN (WAP).

On a Text GCN graph the input features are the identity (one-hot word/document ids), so a
first linear layer ``I W = W`` is just a learnable ``[num_nodes, F]`` table; both models keep
that table as a parameter and never form the identity.  "WAP" (weighted average pooling) is
the aggregation of Text GCN: the GCN-normalised weighted adjacency ``\\hat a`` (Eq.
``gcn_omega``), shared with the other layers through :class:`gfbgcn.nn.gfb_conv.GCNNormConv`.
"""

from __future__ import annotations

from typing import Optional

import torch
import torch.nn.functional as F
from torch import Tensor
from torch.nn import Module, ModuleList, Parameter
from torch_geometric.nn.inits import glorot, reset, zeros
from torch_geometric.nn.models import MLP
from torch_geometric.typing import Adj, OptTensor

from gfbgcn.nn.gfb_conv import GCNNormConv

__all__ = ["TextGIN", "TextSGC", "WeightedGINConv"]

EMBEDDING_INITS: tuple[str, ...] = ("glorot", "normal")


def _featureless(x: Optional[Tensor], name: str) -> None:
    if x is not None:
        raise ValueError(
            f"{name} is featureless (identity input features); pass x=None, got a tensor"
        )


class TextSGC(GCNNormConv):
    r"""Featureless SGC on the text graph: ``logits = \hat A^K W + b`` (Text SGC, WAP).

    SGC with identity features ``X = I`` gives ``\hat A^K I W = \hat A^K W``; ``W`` is a
    learnable ``[num_nodes, num_classes]`` table.  It is evaluated right to left as ``K`` sparse
    products with the ``C``-column matrix (O(K E C)), never forming ``\hat A^2`` or the identity.

    Args:
        num_nodes: number of graph nodes (words + documents).
        num_classes: ``C``.
        K: number of propagation steps (default 2, as SGC).
        cached, add_self_loops, normalize: see :class:`GCNNormConv`.
        bias: learn a bias ``b`` [C].

    Forward: ``model(None, edge_index, edge_weight=None)`` -> logits [num_nodes, C].
    """

    def __init__(
        self,
        num_nodes: int,
        num_classes: int,
        K: int = 2,
        cached: bool = False,
        add_self_loops: Optional[bool] = None,
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
        self, x: Optional[Tensor], edge_index: Adj, edge_weight: OptTensor = None
    ) -> Tensor:
        """``x`` must be ``None``; returns ``\\hat A^K W + b`` [num_nodes, C]."""
        _featureless(x, type(self).__name__)
        edge_index, edge_weight = self.normalized_adjacency(
            edge_index, edge_weight, self.num_nodes, self.weight.dtype
        )
        out = self.weight
        for _ in range(self.K):  # \hat A (\hat A ... (\hat A W))
            out = self.aggregate_gcn(out, edge_index, edge_weight)
        if self.bias is not None:
            out = out + self.bias
        return out

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({self.num_nodes}, {self.num_classes}, K={self.K})"


class WeightedGINConv(GCNNormConv):
    r"""GIN layer on a weighted graph: ``h'_v = MLP((1 + eps) h_v + sum_u \hat a_{vu} h_u)``.

    PyG's ``GINConv`` sums neighbours unweighted; here the neighbour sum is the WAP aggregation
    (GCN-normalised edge weights, self-loops added by default so it is exactly the Text GCN
    aggregation) and GIN's ``(1 + eps) h_v`` is added on top.

    Args:
        nn: the MLP, mapping [N, F_in] -> [N, F_out] (e.g. :class:`torch_geometric.nn.MLP`).
        eps: initial ``eps``.
        train_eps: learn ``eps``.
        cached, add_self_loops, normalize: see :class:`GCNNormConv`.

    Shapes: ``x`` [N, F_in] -> [N, F_out].
    """

    def __init__(
        self,
        nn: Module,
        eps: float = 0.0,
        train_eps: bool = False,
        cached: bool = False,
        add_self_loops: Optional[bool] = None,
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
            edge_index, edge_weight, x.size(self.node_dim), x.dtype
        )
        neighbours = self.aggregate_gcn(x, edge_index, edge_weight)  # WAP: sum_u a_vu h_u
        return self.nn((1.0 + self.eps) * x + neighbours)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(nn={self.nn})"


class TextGIN(Module):
    r"""Text GIN (WAP): identity features via an embedding table, then ``num_layers`` GIN layers.

    ``h^0 = E`` (``[num_nodes, hidden]``, equal to ``I E``: identity features times a first linear
    map), ``h^l = ReLU(WeightedGINConv_l(dropout(h^{l-1})))`` with 2-layer MLPs
    ``hidden -> hidden -> hidden`` (last layer: ``-> num_classes``, no ReLU: logits).

    Args:
        num_nodes: number of graph nodes.
        hidden: embedding / hidden size (the paper's first-layer size is 200).
        num_classes: number of classes.
        num_layers: number of GIN layers (default 2).
        dropout: dropout before every GIN layer (default 0.5, the paper's rate).
        train_eps: learn GIN's ``eps`` (default True).
        eps: initial ``eps`` of every layer (default 0, GIN's).  ``-1`` starts with no self
            term, so a node's own free embedding row is not weighted 1 against its normalised
            neighbours (see ``docs/results/text_notes.md``).
        embedding_init: ``"glorot"`` (default, as Text GCN's ``W_1``) or ``"normal"``
            (``N(0, 1)``, as ``torch.nn.Embedding``).
        cached, add_self_loops, normalize: passed to every :class:`WeightedGINConv`.

    Forward: ``model(None, edge_index, edge_weight=None)`` -> logits [num_nodes, num_classes].
    """

    def __init__(
        self,
        num_nodes: int,
        hidden: int,
        num_classes: int,
        num_layers: int = 2,
        dropout: float = 0.5,
        train_eps: bool = True,
        cached: bool = False,
        add_self_loops: Optional[bool] = None,
        normalize: bool = True,
        eps: float = 0.0,
        embedding_init: str = "glorot",
    ) -> None:
        super().__init__()
        if num_layers < 1:
            raise ValueError(f"num_layers must be >= 1, got {num_layers}")
        if embedding_init not in EMBEDDING_INITS:
            raise ValueError(f"embedding_init must be one of {', '.join(EMBEDDING_INITS)}, "
                             f"got {embedding_init!r}")
        self.embedding_init = embedding_init
        self.num_nodes = num_nodes
        self.hidden = hidden
        self.num_classes = num_classes
        self.dropout = dropout
        self.embedding = Parameter(torch.empty(num_nodes, hidden))  # I E
        self.convs = ModuleList()
        for layer in range(num_layers):
            out = num_classes if layer == num_layers - 1 else hidden
            mlp = MLP([hidden, hidden, out], act="relu", norm=None, dropout=0.0)
            self.convs.append(
                WeightedGINConv(
                    mlp,
                    eps=eps,
                    train_eps=train_eps,
                    cached=cached,
                    add_self_loops=add_self_loops,
                    normalize=normalize,
                )
            )
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Re-initialise the embedding (``embedding_init``) and every GIN layer."""
        if self.embedding_init == "normal":
            torch.nn.init.normal_(self.embedding)
        else:
            glorot(self.embedding)
        for conv in self.convs:
            conv.reset_parameters()

    def forward(
        self, x: Optional[Tensor], edge_index: Adj, edge_weight: OptTensor = None
    ) -> Tensor:
        """``x`` must be ``None``; returns logits [num_nodes, num_classes]."""
        _featureless(x, type(self).__name__)
        h = self.embedding
        for layer, conv in enumerate(self.convs):
            h = F.dropout(h, p=self.dropout, training=self.training)
            h = conv(h, edge_index, edge_weight)
            if layer < len(self.convs) - 1:
                h = F.relu(h)
        return h

    def __repr__(self) -> str:
        return (
            f"{self.__class__.__name__}({self.num_nodes}, {self.hidden}, {self.num_classes}, "
            f"num_layers={len(self.convs)})"
        )

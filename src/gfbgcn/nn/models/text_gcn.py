"""The two-layer Text GCN of the paper (Yao et al. 2019), with any second layer."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch_geometric.nn import MessagePassing
from torch_geometric.nn.inits import glorot

from gfbgcn.nn.sparse import spmm
from gfbgcn.nn.utils import dropout

__all__ = ["TwoLayerTextGCN"]


class TwoLayerTextGCN(nn.Module):
    r"""Two-layer Text GCN on identity features, with a pluggable second layer.

    .. math::
        \mathbf{H} = \mathrm{ReLU}(\hat{\mathbf{A}} \mathbf{I} \mathbf{W}_1)
        = \mathrm{ReLU}(\hat{\mathbf{A}} \mathbf{W}_1),\qquad
        \mathbf{Z} = \mathrm{Layer}_2(\mathrm{dropout}(\mathbf{H}), \hat{\mathbf{A}})

    Layer 1 (paper, "Architecture of GCN") takes identity features ``X = I``, so ``X W1`` is
    just the learnable ``[num_nodes, hidden]`` table ``W1`` and ``X`` is never formed.  Layer 2
    is any layer taking ``(x, adj)``: Text GCN's ``GCNConv``, :class:`~gfbgcn.nn.conv.GFBConv`
    (GFB-GCN), or a baseline (FBP, CBP, BP, square-root pooling).  Like Text GCN, layer 1 has no
    bias.  ``adj`` is the pre-normalised ``Â = D^-1/2 (A+I) D^-1/2``; the second layer must be
    built with ``normalize=False`` so it is not normalised again.

    Args:
        num_nodes: documents + words.
        conv2: the second layer, mapping ``[num_nodes, hidden]`` to ``[num_nodes, C]``.
        hidden: width of layer 1 (the paper's 200).
        dropout: dropout on ``H`` before layer 2 (the paper's 0.5).

    Shapes:
        - **input:** ``adj`` ``[num_nodes, num_nodes]`` sparse (normalised)
        - **output:** logits ``[num_nodes, C]``
    """

    def __init__(self, num_nodes: int, conv2: MessagePassing, hidden: int = 200,
                 dropout: float = 0.5) -> None:
        super().__init__()
        self.dropout = dropout
        self.w1 = nn.Parameter(torch.empty(num_nodes, hidden))
        self.conv2 = conv2
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw ``W1`` (Glorot) and the second layer's weights again."""
        glorot(self.w1)
        self.conv2.reset_parameters()

    def input_weight(self) -> Tensor:
        """``X W`` of layer 1 [num_nodes, hidden]: ``W1`` itself on identity features
        (:class:`~gfbgcn.nn.models.FeatureTextGCN` adds its fixed-feature part)."""
        return self.w1

    def hidden(self, adj: Tensor) -> Tensor:
        """Layer 1, ``ReLU(Â X W)`` [num_nodes, hidden]: independent of dropout."""
        return F.relu(spmm(adj, self.input_weight()))

    def head(self, h: Tensor, adj: Tensor) -> Tensor:
        """Layer 2 on hidden features (dropout applied in training mode)."""
        return self.conv2(dropout(h, self.dropout, self.training), adj)

    def forward(self, adj: Tensor) -> Tensor:
        """Logits ``[num_nodes, C]`` of every node from the normalised adjacency ``adj``
        ``[num_nodes, num_nodes]`` (sparse CSR): :meth:`head` of :meth:`hidden`."""
        return self.head(self.hidden(adj), adj)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({self.w1.size(0)}, hidden={self.w1.size(1)}, " \
               f"conv2={self.conv2})"

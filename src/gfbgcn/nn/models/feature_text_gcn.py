"""Two-layer Text GCN whose nodes start from one-hot identity *and* fixed feature vectors."""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor, nn
from torch_geometric.nn import MessagePassing
from torch_geometric.nn.inits import glorot

from gfbgcn.nn.models.text_gcn import TwoLayerTextGCN
from gfbgcn.nn.sparse import csr_rows, spmm

__all__ = ["FeatureTextGCN"]


class FeatureTextGCN(TwoLayerTextGCN):
    r""":class:`TwoLayerTextGCN` on input ``X = [I | F]``: identity plus fixed node features.

    With the weight of layer 1 split as ``W = [W1; W2]`` (``W1`` ``[N, hidden]`` for the
    identity part, ``W2`` ``[f, hidden]`` for the features),

    .. math::
        \hat{\mathbf{A}} \mathbf{X} \mathbf{W}
        = \hat{\mathbf{A}} (\mathbf{W}_1 + \mathbf{F} \mathbf{W}_2),

    so the dense ``[N, N + f]`` input is never formed: each forward adds one ``[N, f] x
    [f, hidden]`` product to the identity model's cost.  ``F`` is a buffer (fixed, moved with
    the model, not part of the state dict: early stopping copies only what is trained), dense
    or a torch sparse CSR matrix (wide n-gram features: the product then costs one pass over
    its stored entries, and its backward reuses one cached transpose,
    :func:`gfbgcn.nn.sparse.spmm`).
    ``W2`` is Glorot-initialised on its own shape, like ``W1``.

    Args:
        num_nodes: documents + words.
        conv2: the second layer (see :class:`TwoLayerTextGCN`).
        features: ``[num_nodes, f]`` fixed node features (e.g. pretrained word vectors), dense
            or sparse CSR.
        hidden, dropout: as :class:`TwoLayerTextGCN`.
        source: what computed ``features`` (e.g. the n-gram vocabulary and IDF that give a new
            document its row), kept for whoever classifies new nodes; the model never reads it.
    """

    features: Tensor  # a buffer (register_buffer in __init__)

    def __init__(self, num_nodes: int, conv2: MessagePassing, features: Tensor, hidden: int = 200,
                 dropout: float = 0.5, source: Any = None) -> None:
        if features.dim() != 2 or features.size(0) != num_nodes:
            raise ValueError(f"features must be [num_nodes={num_nodes}, f], got "
                             f"{list(features.shape)}")
        if features.layout not in (torch.strided, torch.sparse_csr):
            raise ValueError(f"features must be dense or sparse CSR, got {features.layout}")
        nn.Module.__init__(self)  # parameters created here, then reset once
        self.dropout = dropout
        self.w1 = nn.Parameter(torch.empty(num_nodes, hidden))
        self.w2 = nn.Parameter(torch.empty(features.size(1), hidden))
        self.register_buffer("features", features, persistent=False)  # .double() etc. apply
        self.conv2 = conv2
        self.source = source
        self.reset_parameters()

    @property
    def sparse_features(self) -> bool:
        return self.features.layout == torch.sparse_csr

    def reset_parameters(self) -> None:
        """Draw ``W1``, ``W2`` (Glorot) and the second layer's weights again."""
        super().reset_parameters()
        glorot(self.w2)

    def input_weight(self) -> Tensor:
        """``[I | F] [W1; W2] = W1 + F W2``."""
        if self.sparse_features:
            return self.w1 + self.feature_part(self.features)
        return torch.addmm(self.w1, self.features.to(self.w2.dtype), self.w2)

    def feature_part(self, rows: Tensor) -> Tensor:
        """``F_rows W2`` ``[B, hidden]`` of rows of ``F`` (sparse CSR rows: ``spmm``)."""
        if rows.layout == torch.sparse_csr:
            # the buffer follows the model's dtype; rows cut from it already have it
            return spmm(rows if rows.dtype == self.w2.dtype else rows.to(self.w2.dtype), self.w2)
        return rows.to(self.w2.dtype) @ self.w2

    def feature_rows(self, nodes: Tensor) -> Tensor:
        """``F[nodes] W2`` ``[len(nodes), hidden]`` (mini-batch training's layer-1 rows)."""
        if self.sparse_features:
            return self.feature_part(csr_rows(self.features, nodes))
        return self.feature_part(self.features[nodes])

    def __repr__(self) -> str:
        return (f"{self.__class__.__name__}({self.w1.size(0)}, features={self.w2.size(0)}, "
                f"hidden={self.w1.size(1)}, conv2={self.conv2})")

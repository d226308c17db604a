"""Two-layer Text GCN whose nodes start from one-hot identity *and* fixed feature vectors."""

from __future__ import annotations

import torch
from torch import Tensor, nn
from torch_geometric.nn import MessagePassing
from torch_geometric.nn.inits import glorot

from gfbgcn.nn.models.text_gcn import TwoLayerTextGCN

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
    the model, not part of the state dict: early stopping copies only what is trained).
    ``W2`` is Glorot-initialised on its own shape, like ``W1``.

    Args:
        num_nodes: documents + words.
        conv2: the second layer (see :class:`TwoLayerTextGCN`).
        features: ``[num_nodes, f]`` fixed node features (e.g. pretrained word vectors).
        hidden, dropout: as :class:`TwoLayerTextGCN`.
    """

    features: Tensor  # a buffer (register_buffer in __init__)

    def __init__(self, num_nodes: int, conv2: MessagePassing, features: Tensor, hidden: int = 200,
                 dropout: float = 0.5) -> None:
        if features.dim() != 2 or features.size(0) != num_nodes:
            raise ValueError(f"features must be [num_nodes={num_nodes}, f], got "
                             f"{list(features.shape)}")
        nn.Module.__init__(self)  # parameters created here, then reset once
        self.dropout = dropout
        self.w1 = nn.Parameter(torch.empty(num_nodes, hidden))
        self.w2 = nn.Parameter(torch.empty(features.size(1), hidden))
        self.register_buffer("features", features, persistent=False)  # .double() etc. apply
        self.conv2 = conv2
        self.reset_parameters()

    def reset_parameters(self) -> None:
        super().reset_parameters()
        glorot(self.w2)

    def input_weight(self) -> Tensor:
        """``[I | F] [W1; W2] = W1 + F W2``."""
        return torch.addmm(self.w1, self.features.to(self.w2.dtype), self.w2)

    def __repr__(self) -> str:
        return (f"{self.__class__.__name__}({self.w1.size(0)}, features={self.w2.size(0)}, "
                f"hidden={self.w1.size(1)}, conv2={self.conv2})")

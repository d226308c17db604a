r"""Text GCN with a GFB second layer whose second-order term sees the hidden features undropped
(the fidelity configurations with ``second_order_dropout: false``).

In training, dropout scales the kept features by ``1/(1-p)``, which inflates the squared term
of the GFB layer: ``E[(W \tilde h)_i^2] = (W h)_i^2 + \frac{p}{1-p} \sum_j W_{ij}^2 h_j^2``.
Feeding the second-order term ``H`` itself removes that:

.. math::
    \mathbf{Z} = \hat{\mathbf{A}}\big[\mathrm{dropout}(\mathbf{H}) \mathbf{W}^\top
    + \lambda\, N\big(\mathrm{GenVec}(\mathbf{H}\mathbf{W}^\top)\big)\big] + \mathbf{b}
"""

from __future__ import annotations

from typing import cast

from torch import Tensor, nn
from torch_geometric.typing import Adj, OptTensor

from gfbgcn.nn.conv.gfb_conv import GFBConv
from gfbgcn.nn.models.text_gcn import TwoLayerTextGCN
from gfbgcn.nn.utils import dropout


def split_forward(conv: GFBConv, x_first: Tensor, x_second: Tensor, edge_index: Adj,
                  edge_weight: OptTensor = None) -> Tensor:
    r"""``conv`` with separate inputs for its two terms.

    .. math::
        \mathbf{x}'_v = \sum_{u} \hat a_{vu} \big[\mathbf{W} \mathbf{a}_u + \lambda\,
        N\big(\mathrm{GenVec}(\mathbf{W} \mathbf{b}_u \mathbf{b}_u^\top
        \mathbf{W}^\top + \epsilon \mathbf{I})\big)\big] + \mathbf{b}

    with ``a = x_first`` and ``b = x_second`` (``[N, d]`` each; output ``[N, k]``);
    ``split_forward(conv, x, x, ...)`` equals ``conv(x, ...)``.
    """
    edge_index, edge_weight = conv.normalized_adjacency(
        edge_index, edge_weight, int(x_first.shape[conv.node_dim]), x_first.dtype)
    z = conv.lin(x_first) + conv.gfb_second(conv.lin(x_second))
    out = conv.aggregate_gcn(z, edge_index, edge_weight)
    return out + conv.bias if conv.bias is not None else out


class UndroppedSecondOrder(nn.Module):
    """Wraps a built :class:`~gfbgcn.nn.models.TwoLayerTextGCN` with a GFB second layer; its
    parameters stay the wrapped model's (nothing is drawn again), only ``head`` differs."""

    def __init__(self, model: nn.Module) -> None:
        super().__init__()
        # exactly the identity-feature model: FeatureTextGCN's input differs
        if type(model) is not TwoLayerTextGCN or not isinstance(model.conv2, GFBConv):
            raise ValueError("second_order_dropout=False needs the identity-feature Text GCN "
                             f"with a GFB second layer, got {type(model).__name__}")
        self.model = model

    def hidden(self, adj: Tensor) -> Tensor:
        return self.model.hidden(adj)

    def head(self, h: Tensor, adj: Tensor) -> Tensor:
        """Layer 2: ``dropout(h)`` in the first-order term, ``h`` in the second."""
        dropped = dropout(h, self.model.dropout, self.training)
        return split_forward(cast(GFBConv, self.model.conv2), dropped, h, adj)

    def forward(self, adj: Tensor) -> Tensor:
        return self.head(self.hidden(adj), adj)


__all__ = ["UndroppedSecondOrder", "split_forward"]

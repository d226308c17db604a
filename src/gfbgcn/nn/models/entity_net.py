"""Two-layer relational classifier for featureless entity graphs (R-GCN, GFB-R-GCN)."""

from __future__ import annotations

from typing import NamedTuple

import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch_geometric.nn import MessagePassing

__all__ = ["EntityNet", "TargetEdges"]


class TargetEdges(NamedTuple):
    """The edges that end in ``target`` nodes, re-indexed to slots ``0..T-1``
    (see :meth:`EntityNet.target_edges`)."""

    target: Tensor  # [T] distinct node ids
    edge_index: Tensor  # [2, E_T]: source node id -> target slot
    edge_type: Tensor  # [E_T]


class EntityNet(nn.Module):
    r"""``logits = conv2(ReLU(conv1(one-hot nodes)))`` with relational convolutions.

    .. math::
        \mathbf{h}^{(1)} = \mathrm{ReLU}(\mathrm{conv}_1(\mathbf{I}, \mathcal{E})),\qquad
        \mathbf{Z} = \mathrm{conv}_2(\mathbf{h}^{(1)}, \mathcal{E})

    The supplement's entity-classification model: featureless nodes (``conv1`` is called with
    ``x=None``, so its ``W_r`` rows are indexed by node id), per-relation mean aggregation, ReLU
    between the layers.  ``conv1``/``conv2`` are PyG ``FastRGCNConv`` (R-GCN) or
    :class:`~gfbgcn.nn.conv.GFBRGCNConv` (GFB-R-GCN) layers.

    Args:
        conv1: ``num_nodes -> hidden`` relational convolution (featureless input).
        conv2: ``hidden -> num_classes`` relational convolution.

    Shapes:
        - **input:** ``edge_index`` ``[2, E]``, ``edge_type`` ``[E]``, optionally ``target``
          ``[T]`` distinct node ids (or their :class:`TargetEdges`)
        - **output:** logits ``[N, C]``, or ``[T, C]`` for ``target``
    """

    def __init__(self, conv1: MessagePassing, conv2: MessagePassing) -> None:
        super().__init__()
        self.conv1 = conv1
        self.conv2 = conv2

    def reset_parameters(self) -> None:
        """Draw both layers' initial weights again."""
        self.conv1.reset_parameters()
        self.conv2.reset_parameters()

    @staticmethod
    def target_edges(edge_index: Tensor, edge_type: Tensor, target: Tensor,
                     num_nodes: int) -> TargetEdges:
        """The second layer's edges for ``target``: only edges ending in a target node matter.

        Computing them waits for the device (the uniqueness check and the boolean mask have
        data-dependent sizes), so a training loop computes them once and passes the result to
        :meth:`forward` every epoch.
        """
        if target.unique().numel() != target.numel():
            raise ValueError("target nodes must be distinct")
        position = torch.full((num_nodes,), -1, dtype=torch.long, device=target.device)
        position[target] = torch.arange(target.numel(), device=target.device)
        keep = position[edge_index[1]] >= 0
        sub = torch.stack([edge_index[0, keep], position[edge_index[1, keep]]])  # src -> slot
        return TargetEdges(target, sub, edge_type[keep])

    def forward(self, edge_index: Tensor, edge_type: Tensor,
                target: Tensor | TargetEdges | None = None) -> Tensor:
        """Class scores: ``[N, C]``, or ``[T, C]`` for the nodes ``target`` (``[T]`` long, or
        the :class:`TargetEdges` of :meth:`target_edges`, which saves recomputing them).

        With ``target`` the second layer reads only the edges that end in ``target`` (its output
        at other nodes is never used), which gives exactly the same scores for those nodes.
        """
        # h^(1) = ReLU(sum_r sum_j (1/c_ir) W_r^(1) e_j [+ lambda_1 GenVec] + W_0^(1) e_i)
        h = F.relu(self.conv1(None, edge_index, edge_type))  # [N, hidden]
        if target is None:
            # logits = sum_r sum_j (1/c_ir) W_r^(2) h_j [+ lambda_2 GenVec] + W_0^(2) h_i
            return self.conv2(h, edge_index, edge_type)
        if not isinstance(target, TargetEdges):
            target = self.target_edges(edge_index, edge_type, target, h.size(0))
        return self.conv2((h, h[target.target]), target.edge_index, target.edge_type)  # [T, C]

    def lambdas(self) -> list[float]:
        """The learned ``lambda_l`` per layer (empty for R-GCN)."""
        return [float(c.lam.detach()) for c in (self.conv1, self.conv2) if hasattr(c, "lam")]

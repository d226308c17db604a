"""Two-layer relational classifier for featureless entity graphs (R-GCN, GFB-R-GCN)."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn

__all__ = ["EntityNet"]


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
          ``[T]`` distinct node ids
        - **output:** logits ``[N, C]``, or ``[T, C]`` for ``target``
    """

    def __init__(self, conv1: nn.Module, conv2: nn.Module) -> None:
        super().__init__()
        self.conv1 = conv1
        self.conv2 = conv2

    def reset_parameters(self) -> None:
        self.conv1.reset_parameters()  # type: ignore[operator]
        self.conv2.reset_parameters()  # type: ignore[operator]

    def forward(self, edge_index: Tensor, edge_type: Tensor, target: Tensor | None = None) -> Tensor:
        """Class scores: ``[N, C]``, or ``[T, C]`` for the nodes ``target`` (``[T]`` long).

        With ``target`` the second layer reads only the edges that end in ``target`` (its output
        at other nodes is never used), which gives exactly the same scores for those nodes.
        """
        # h^(1) = ReLU(sum_r sum_j (1/c_ir) W_r^(1) e_j [+ lambda_1 GenVec] + W_0^(1) e_i)
        h = F.relu(self.conv1(None, edge_index, edge_type))  # [N, hidden]
        if target is None:
            # logits = sum_r sum_j (1/c_ir) W_r^(2) h_j [+ lambda_2 GenVec] + W_0^(2) h_i
            return self.conv2(h, edge_index, edge_type)
        if target.unique().numel() != target.numel():
            raise ValueError("target nodes must be distinct")
        position = torch.full((h.size(0),), -1, dtype=torch.long, device=h.device)
        position[target] = torch.arange(target.numel(), device=h.device)
        keep = position[edge_index[1]] >= 0
        sub = torch.stack([edge_index[0, keep], position[edge_index[1, keep]]])  # src -> slot
        return self.conv2((h, h[target]), sub, edge_type[keep])  # [T, C]

    def lambdas(self) -> list[float]:
        """The learned ``lambda_l`` per layer (empty for R-GCN)."""
        return [float(c.lam.detach()) for c in (self.conv1, self.conv2) if hasattr(c, "lam")]

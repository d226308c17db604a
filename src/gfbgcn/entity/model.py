"""Two-layer R-GCN / GFB-R-GCN entity classifiers on featureless relational graphs.

Both follow the supplement's protocol: layer 1 maps featureless nodes (one-hot, i.e. ``W_r``
rows indexed by node id) to ``hidden`` channels, ReLU, layer 2 maps to class scores; per-relation
mean aggregation ``c_{i,r} = |N_i^r|``; optional basis decomposition in both layers.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch_geometric.nn import FastRGCNConv

from gfbgcn.nn.gfb_rgcn_conv import GFBRGCNConv

MODELS: tuple[str, ...] = ("rgcn", "gfb-rgcn")


@dataclass(frozen=True)
class EntityConfig:
    """Everything that defines one model/optimiser setting (recorded with every run)."""

    model: str = "rgcn"
    hidden: int = 16
    num_bases: int | None = None
    weight_decay: float = 0.0
    lr: float = 0.01
    epochs: int = 50
    summarize: str = "mean"
    lambda_init: float = 1.0
    eps: float = 0.0
    exact: bool = True
    k_top: int = 3

    @property
    def tag(self) -> str:
        """A short, file-name-safe identifier of the tunable part of the config."""
        bases = "full" if self.num_bases is None else f"b{self.num_bases}"
        tag = f"h{self.hidden}-{bases}-wd{self.weight_decay:g}-lr{self.lr:g}-e{self.epochs}"
        if self.model == "gfb-rgcn":
            tag += f"-{self.summarize}-lam{self.lambda_init:g}"
            if self.eps:
                tag += f"-eps{self.eps:g}"
            if not self.exact:
                tag += "-fast"
            if self.summarize == "topk":
                tag += f"-k{self.k_top}"
        return tag

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


class EntityNet(nn.Module):
    """``logits = conv2(relu(conv1(one-hot nodes)))`` with R-GCN or GFB-R-GCN layers.

    R-GCN uses PyG's ``FastRGCNConv``: the same parameters and function as ``RGCNConv``
    (per-relation mean), computed per edge; ``RGCNConv``'s per-relation loop is far slower on
    these featureless many-relation graphs (see :mod:`gfbgcn.nn.gfb_rgcn_conv`).  GFB-R-GCN uses
    :class:`GFBRGCNConv`, a ``FastRGCNConv`` with GenVec messages.

    Shapes: ``edge_index [2, E]``, ``edge_type [E]`` -> logits ``[N, num_classes]``.
    """

    def __init__(
        self, num_nodes: int, num_relations: int, num_classes: int, config: EntityConfig
    ) -> None:
        super().__init__()
        if config.model not in MODELS:
            raise ValueError(f"unknown model {config.model!r}; choose from {', '.join(MODELS)}")
        self.config = config
        if config.model == "rgcn":
            self.conv1: FastRGCNConv = FastRGCNConv(
                num_nodes, config.hidden, num_relations, num_bases=config.num_bases
            )
            self.conv2: FastRGCNConv = FastRGCNConv(
                config.hidden, num_classes, num_relations, num_bases=config.num_bases
            )
        else:
            kw = dict(
                summarize=config.summarize,
                eps=config.eps,
                exact=config.exact,
                k_top=config.k_top,
                lambda_init=config.lambda_init,
            )
            self.conv1 = GFBRGCNConv(
                num_nodes, config.hidden, num_relations, num_bases=config.num_bases, **kw
            )
            self.conv2 = GFBRGCNConv(
                config.hidden, num_classes, num_relations, num_bases=config.num_bases, **kw
            )

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
        position = torch.full((h.size(0),), -1, dtype=torch.long, device=h.device)
        position[target] = torch.arange(target.numel(), device=h.device)
        keep = position[edge_index[1]] >= 0
        if target.unique().numel() != target.numel():
            raise ValueError("target nodes must be distinct")
        sub = torch.stack([edge_index[0, keep], position[edge_index[1, keep]]])  # src -> slot
        return self.conv2((h, h[target]), sub, edge_type[keep])  # [T, C]

    def lambdas(self) -> list[float]:
        """The learned ``lambda_l`` per layer (empty for R-GCN)."""
        return [float(c.lam.detach()) for c in (self.conv1, self.conv2) if isinstance(c, GFBRGCNConv)]

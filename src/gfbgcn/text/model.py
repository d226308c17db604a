"""The two-layer Text GCN of the paper with a choice of second layer, and whole-model baselines.

Layer 1 (paper, "Architecture of GCN"): ``H = ReLU(Â X W1)`` with identity features ``X = I``,
so it is ``ReLU(Â W1)`` with ``W1`` a ``[num_nodes, hidden]`` table; ``X`` is never formed.
Layer 2 (on ``dropout(H)``): first-order GCN (Text GCN), GFB with one of the GenVec operators
(Eq. ``cfm``), FBP (Eq. ``fm``), CBP, BP (Eq. ``bipool``) or square-root pooling.
Whole-model baselines: Text SGC (``Â² W``) and Text GIN.

Like Text GCN, the layers have no bias (weight decay is 0 in the paper's protocol too).
All layers receive the pre-normalised ``Â`` (``D^-1/2 (A+I) D^-1/2``) as a torch sparse CSR
matrix with ``normalize=False``: it is built once per graph and never converted again.
"""

from __future__ import annotations

from typing import Any


import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch_geometric.nn.inits import glorot

from gfbgcn.nn import BPConv, CBPConv, FBPConv, GFBConv, SqrtGCNConv, TextGIN, TextSGC
from gfbgcn.nn.fast_convs import FastGCNConv
from gfbgcn.nn.sparse import spmm

SECOND_LAYERS: tuple[str, ...] = (
    "gcn",
    "gfb-max",
    "gfb-mean",
    "gfb-diag",
    "gfb-topk",
    "gfb-upper",
    "fbp",
    "cbp",
    "bp",
    "sqrt",
)
WHOLE_MODELS: tuple[str, ...] = ("sgc", "gin")
MODELS: tuple[str, ...] = SECOND_LAYERS + WHOLE_MODELS


def make_second_layer(name: str, hidden: int, num_classes: int, **options: Any) -> nn.Module:
    """The paper's second-layer variants; ``options`` go to the layer (e.g. ``exact``, ``eps``)."""
    common = {"normalize": False, "bias": False}
    if name == "gcn":
        return FastGCNConv(hidden, num_classes, **common)
    if name.startswith("gfb-"):
        return GFBConv(hidden, num_classes, summarize=name[4:], **common, **options)
    layer_cls = {"fbp": FBPConv, "cbp": CBPConv, "bp": BPConv, "sqrt": SqrtGCNConv}.get(name)
    if layer_cls is None:
        raise ValueError(f"unknown model {name!r}; choose one of {', '.join(MODELS)}")
    return layer_cls(hidden, num_classes, **common, **options)


class TwoLayerTextGCN(nn.Module):
    """``logits = Layer2(dropout(ReLU(Â W1)), Â)``; ``W1``: [num_nodes, hidden]."""

    def __init__(
        self,
        num_nodes: int,
        num_classes: int,
        second: str = "gfb-max",
        hidden: int = 200,
        dropout: float = 0.5,
        **layer_options: Any,
    ) -> None:
        super().__init__()
        self.second = second
        self.dropout = dropout
        self.w1 = nn.Parameter(torch.empty(num_nodes, hidden))
        self.conv2 = make_second_layer(second, hidden, num_classes, **layer_options)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        glorot(self.w1)
        self.conv2.reset_parameters()

    def hidden(self, adj: Tensor) -> Tensor:
        """Layer 1, ``ReLU(Â W1)`` [num_nodes, hidden]: independent of dropout."""
        return F.relu(spmm(adj, self.w1))

    def head(self, h: Tensor, adj: Tensor) -> Tensor:
        """Layer 2 on hidden features (dropout applied in training mode)."""
        return self.conv2(F.dropout(h, self.dropout, self.training), adj)

    def forward(self, adj: Tensor) -> Tensor:
        return self.head(self.hidden(adj), adj)


class WholeModel(nn.Module):
    """Adapter giving Text SGC / Text GIN the ``model(adj)`` calling convention."""

    def __init__(self, module: nn.Module) -> None:
        super().__init__()
        self.module = module

    def reset_parameters(self) -> None:
        self.module.reset_parameters()

    def forward(self, adj: Tensor) -> Tensor:
        return self.module(None, adj)


def build_text_model(
    name: str,
    num_nodes: int,
    num_classes: int,
    hidden: int = 200,
    dropout: float = 0.5,
    **layer_options: Any,
) -> nn.Module:
    """Any of :data:`MODELS` taking ``model(adj)`` and returning logits for every node."""
    if name == "sgc":
        return WholeModel(TextSGC(num_nodes, num_classes, K=2, normalize=False, bias=False))
    if name == "gin":
        return WholeModel(
            TextGIN(num_nodes, hidden, num_classes, dropout=dropout, normalize=False,
                    **layer_options)
        )
    if name not in SECOND_LAYERS:
        raise ValueError(f"unknown model {name!r}; choose one of {', '.join(MODELS)}")
    return TwoLayerTextGCN(num_nodes, num_classes, name, hidden, dropout, **layer_options)

"""The graph classifiers by name: GCN, GraphSAGE and their GFB versions, pooled and classified.

    h^(0) = x                                                [N, F]
    h^(l) = ReLU(conv_l(h^(l-1), A))      l = 1..L           [N, H]
    g     = mean_{v in graph} h^(L)_v     (global_mean_pool) [B, H]
    logits = W_2 dropout(ReLU(W_1 g + b_1)) + b_2            [B, C]

``conv_l`` is PyG's ``GCNConv`` ("gcn", as :class:`CachedTransposeGCNConv`: PyG's layer with a
faster sparse backward), ``SAGEConv`` ("sage"), and their GFB versions with
DiagVec (paper: "Our GFB based methods use DiagVec in the aggregation function"):
``GFBConv(summarize="diag")`` ("gfb-gcn") and :class:`~gfbgcn.nn.gfb_sage_conv.GFBSAGEConv`
("gfb-sage"), i.e. Eq. ``cfm``: Omega{W h_u + lambda GenVec(W h_u h_u^T W^T + eps I)}.

The model itself is :class:`~gfbgcn.nn.models.GraphClassifier`.
"""

from __future__ import annotations

from typing import Any

from torch import nn
from torch_geometric.nn import SAGEConv

from gfbgcn.nn.conv import CachedTransposeGCNConv, GFBConv, GFBSAGEConv
from gfbgcn.nn.models import GraphClassifier

MODELS: tuple[str, ...] = ("gcn", "sage", "gfb-gcn", "gfb-sage")
MODEL_LABELS: dict[str, str] = {
    "gcn": "GCN",
    "sage": "GraphSAGE",
    "gfb-gcn": "GFB-GCN",
    "gfb-sage": "GFB-GraphSAGE",
}


GCN_NORMALISED: frozenset[str] = frozenset({"gcn", "gfb-gcn"})


def make_conv(
    model: str, in_channels: int, out_channels: int, normalize: bool = True,
    gfb_options: dict[str, Any] | None = None,
) -> nn.Module:
    """One convolution of family ``model`` mapping [N, in_channels] -> [N, out_channels].

    ``normalize=False`` (GCN families only) expects the caller to pass the GCN-normalised
    adjacency with self-loops (as ``(edge_index, edge_weight)`` or a sparse matrix).
    ``gfb_options`` go to the GFB convolutions (they may override ``summarize="diag"``).
    """
    gfb = {"summarize": "diag", **(gfb_options or {})}
    if model == "gcn":
        return CachedTransposeGCNConv(in_channels, out_channels, normalize=normalize)
    if model == "sage":
        return SAGEConv(in_channels, out_channels)
    if model == "gfb-gcn":
        return GFBConv(in_channels, out_channels, normalize=normalize, **gfb)
    if model == "gfb-sage":
        return GFBSAGEConv(in_channels, out_channels, **gfb)
    raise ValueError(f"unknown model {model!r}; choose from {', '.join(MODELS)}")


def build_classifier(
    model: str,
    in_channels: int,
    hidden: int,
    layers: int,
    num_classes: int,
    dropout: float = 0.5,
    conv_options: dict[str, Any] | None = None,
    readout: str = "mean",
) -> GraphClassifier:
    """``layers`` convolutions of family ``model`` (width ``hidden``), mean pooling, MLP head.

    The GCN families share one normalised adjacency per forward (their convolutions are built
    with ``normalize=False``); the SAGE families aggregate over the binary adjacency.
    """
    if layers < 1:
        raise ValueError(f"layers must be >= 1, got {layers}")
    shared_norm = model in GCN_NORMALISED
    conv_kwargs = {"normalize": False} if shared_norm else {}
    convs = [make_conv(model, in_channels if i == 0 else hidden, hidden, **conv_kwargs,
                       gfb_options=conv_options)
             for i in range(layers)]
    return GraphClassifier(convs, hidden, num_classes, dropout,
                           adjacency="gcn" if shared_norm else "binary", readout=readout)


def count_parameters(module: nn.Module) -> int:
    return sum(p.numel() for p in module.parameters() if p.requires_grad)


__all__ = ["MODELS", "MODEL_LABELS", "build_classifier", "count_parameters", "make_conv"]

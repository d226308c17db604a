"""The text models of the paper by name: Text GCN with a choice of second layer, and baselines.

Layer 1 (paper, "Architecture of GCN") is ``H = ReLU(Â W1)`` on identity features
(:class:`~gfbgcn.nn.models.TwoLayerTextGCN`).  Layer 2 (on ``dropout(H)``) is chosen by name:
first-order GCN (Text GCN), GFB with one of the GenVec operators (Eq. ``cfm``), FBP (Eq. ``fm``),
CBP, BP (Eq. ``bipool``) or square-root pooling.  Whole-model baselines: Text SGC (``Â² W``) and
Text GIN.

Like Text GCN, the layers have no bias (weight decay is 0 in the paper's protocol too).
All layers receive the pre-normalised ``Â`` (``D^-1/2 (A+I) D^-1/2``) as a torch sparse CSR
matrix with ``normalize=False``: it is built once per graph and never converted again.
"""

from __future__ import annotations

from typing import Any

from torch import Tensor, nn

from gfbgcn.core.errors import OptionError
from gfbgcn.nn.conv import (
    BPConv,
    CachedTransposeGCNConv,
    CBPConv,
    FBPConv,
    GFBConv,
    SqrtGCNConv,
)
from gfbgcn.nn.models import FeatureTextGCN, TextGIN, TextSGC, TwoLayerTextGCN

# the names a user chooses from live with the other settings (gfbgcn.text.params)
from gfbgcn.text.params import MODELS, SECOND_LAYERS, WHOLE_MODELS

#: The models that classify new documents inductively and can be saved (``--save``).
INDUCTIVE_MODELS: tuple[str, ...] = SECOND_LAYERS


def check_model(name: object) -> None:
    """Refuse a model name not in :data:`MODELS` (an :class:`OptionError` listing them)."""
    if not isinstance(name, str) or name not in MODELS:
        raise OptionError(f"unknown model {name!r}; choose one of {', '.join(MODELS)}")


def make_second_layer(name: str, hidden: int, num_classes: int, **options: Any) -> nn.Module:
    """The paper's second-layer variants; ``options`` go to the layer (e.g. ``exact``, ``eps``)."""
    common: dict[str, Any] = {"normalize": False, "bias": False}
    if name == "gcn":
        return CachedTransposeGCNConv(hidden, num_classes, **common)
    if name.startswith("gfb-"):
        return GFBConv(hidden, num_classes, summarize=name[4:], **common, **options)
    layer_cls = {"fbp": FBPConv, "cbp": CBPConv, "bp": BPConv, "sqrt": SqrtGCNConv}.get(name)
    if layer_cls is None:
        check_model(name)
        raise ValueError(f"{name} is a whole model, not a second layer")
    return layer_cls(hidden, num_classes, **common, **options)


class WholeModel(nn.Module):
    """Adapter giving Text SGC / Text GIN the ``model(adj)`` calling convention."""

    def __init__(self, module: TextSGC | TextGIN) -> None:
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
    features: Tensor | None = None,
    feature_source: Any = None,
    **layer_options: Any,
) -> nn.Module:
    """Any of :data:`MODELS` taking ``model(adj)`` and returning logits for every node.

    ``features`` ``[num_nodes, f]``: fixed node features beside the identity (two-layer models
    only, :class:`~gfbgcn.nn.models.FeatureTextGCN`; see :mod:`gfbgcn.text.train.features`),
    dense or sparse CSR; ``feature_source``: what computed them (kept by the model)."""
    if features is not None and name in WHOLE_MODELS:
        raise ValueError(f"input features apply to the two-layer models, not to {name}")
    if name == "sgc":
        return WholeModel(TextSGC(num_nodes, num_classes, K=2, normalize=False, bias=False))
    if name == "gin":
        return WholeModel(
            TextGIN(num_nodes, hidden, num_classes, dropout=dropout, normalize=False,
                    **layer_options)
        )
    check_model(name)
    conv2 = make_second_layer(name, hidden, num_classes, **layer_options)
    if features is not None:
        return FeatureTextGCN(num_nodes, conv2, features, hidden, dropout, feature_source)
    return TwoLayerTextGCN(num_nodes, conv2, hidden, dropout)

"""The entity classifiers by name: two-layer R-GCN / GFB-R-GCN on featureless relational graphs.

Both follow the supplement's protocol: layer 1 maps featureless nodes (one-hot, i.e. ``W_r``
rows indexed by node id) to ``hidden`` channels, ReLU, layer 2 maps to class scores; per-relation
mean aggregation ``c_{i,r} = |N_i^r|``; optional basis decomposition in both layers.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from torch_geometric.nn import FastRGCNConv

from gfbgcn.nn.conv import GFBRGCNConv
from gfbgcn.nn.models import EntityNet

#: The entity models: R-GCN (the baseline) and GFB-R-GCN (its layers are
#: :class:`~gfbgcn.nn.conv.GFBRGCNConv`).
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
        """The settings as a plain dict (field name -> value), as run records store them."""
        return asdict(self)


def build_entity_net(
    num_nodes: int, num_relations: int, num_classes: int, config: EntityConfig
) -> EntityNet:
    """The model of ``config``: two ``FastRGCNConv`` (R-GCN) or :class:`GFBRGCNConv` layers.

    R-GCN uses PyG's ``FastRGCNConv``: the same parameters and function as ``RGCNConv``
    (per-relation mean), computed per edge; ``RGCNConv``'s per-relation loop is far slower on
    these featureless many-relation graphs (see :mod:`gfbgcn.nn.conv.gfb_rgcn_conv`).
    """
    if config.model not in MODELS:
        raise ValueError(f"unknown model {config.model!r}; choose from {', '.join(MODELS)}")
    if config.model == "rgcn":
        conv, kw = FastRGCNConv, {}
    else:
        conv, kw = GFBRGCNConv, dict(summarize=config.summarize, eps=config.eps,
                                     exact=config.exact, k_top=config.k_top,
                                     lambda_init=config.lambda_init)
    return EntityNet(
        conv(num_nodes, config.hidden, num_relations, num_bases=config.num_bases, **kw),
        conv(config.hidden, num_classes, num_relations, num_bases=config.num_bases, **kw),
    )

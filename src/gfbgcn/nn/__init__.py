"""PyTorch Geometric layers and models of the GFB-GCN paper.

- :mod:`gfbgcn.nn.conv`: the layers, one per file: :class:`GFBConv` (Eq. ``cfm``),
  :class:`GFBRGCNConv` and :class:`GFBSAGEConv` (relational and GraphSAGE versions), the
  baselines :class:`FBPConv` (Eq. ``fm``), :class:`BPConv` (Eq. ``bipool``), :class:`CBPConv`
  (Tensor Sketch), :class:`SqrtGCNConv`, :class:`WeightedGINConv`, PyG's ``GCNConv`` with a
  cached-transpose sparse backward (:class:`CachedTransposeGCNConv`), and their shared bases
  :class:`GCNNormConv` / :class:`SecondOrderConv`.
- :mod:`gfbgcn.nn.models`: whole models (:class:`TwoLayerTextGCN`, :class:`TextSGC`,
  :class:`TextGIN`, :class:`GraphClassifier`, :class:`EntityNet`).
- :mod:`gfbgcn.nn.genvec`: the GenVec summarisers (MaxVec, MeanVec, DiagVec, TopKVec, UpperVec);
  :mod:`gfbgcn.nn.gfb`: the GFB term shared by the GFB layers.
"""

from gfbgcn.nn.conv import (
    BPConv,
    CachedTransposeGCNConv,
    CBPConv,
    FBPConv,
    GCNNormConv,
    GFBConv,
    GFBRGCNConv,
    GFBSAGEConv,
    SecondOrderConv,
    SqrtGCNConv,
    WeightedGINConv,
)
from gfbgcn.nn.genvec import SUMMARIZERS, genvec, genvec_reference
from gfbgcn.nn.models import (
    EntityNet,
    GraphClassifier,
    TextGIN,
    TextSGC,
    TwoLayerTextGCN,
)
from gfbgcn.nn.sparse import mark_symmetric, spmm

__all__ = [
    "SUMMARIZERS",
    "BPConv",
    "CBPConv",
    "CachedTransposeGCNConv",
    "EntityNet",
    "FBPConv",
    "GCNNormConv",
    "GFBConv",
    "GFBRGCNConv",
    "GFBSAGEConv",
    "GraphClassifier",
    "SecondOrderConv",
    "SqrtGCNConv",
    "TextGIN",
    "TextSGC",
    "TwoLayerTextGCN",
    "WeightedGINConv",
    "genvec",
    "genvec_reference",
    "mark_symmetric",
    "spmm",
]

"""PyTorch Geometric layers of the GFB-GCN paper.

- :mod:`~gfbgcn.nn.genvec`: the GenVec summarisers (MaxVec, MeanVec, DiagVec, TopKVec, UpperVec).
- :class:`GFBConv`: GCN layer with GFB aggregation (Eq. ``cfm``); :class:`GFBRGCNConv` and
  :class:`GFBSAGEConv`: the relational and GraphSAGE versions.
- Baselines of the paper: :class:`FBPConv` (Eq. ``fm``), :class:`BPConv` (Eq. ``bipool``),
  :class:`CBPConv` (Tensor Sketch), :class:`SqrtGCNConv`, :class:`TextSGC`, :class:`TextGIN`.
"""

from gfbgcn.nn.bilinear import BPConv, CBPConv, FBPConv, SqrtGCNConv
from gfbgcn.nn.fast_convs import FastGCNConv
from gfbgcn.nn.genvec import SUMMARIZERS, genvec, genvec_reference
from gfbgcn.nn.gfb_conv import GCNNormConv, GFBConv
from gfbgcn.nn.gfb_rgcn_conv import GFBRGCNConv
from gfbgcn.nn.gfb_sage_conv import GFBSAGEConv
from gfbgcn.nn.sparse import mark_symmetric, spmm
from gfbgcn.nn.text_models import TextGIN, TextSGC, WeightedGINConv

__all__ = [
    "BPConv",
    "CBPConv",
    "FBPConv",
    "FastGCNConv",
    "GCNNormConv",
    "GFBConv",
    "GFBRGCNConv",
    "GFBSAGEConv",
    "SUMMARIZERS",
    "SqrtGCNConv",
    "TextGIN",
    "TextSGC",
    "WeightedGINConv",
    "genvec",
    "genvec_reference",
    "mark_symmetric",
    "spmm",
]

"""Graph convolutions of the GFB-GCN paper, one per file (as ``torch_geometric.nn.conv``)."""

from gfbgcn.nn.conv.bp_conv import BPConv
from gfbgcn.nn.conv.cached_transpose_gcn_conv import CachedTransposeGCNConv
from gfbgcn.nn.conv.cbp_conv import CBPConv
from gfbgcn.nn.conv.fbp_conv import FBPConv
from gfbgcn.nn.conv.gcn_norm_conv import GCNNormConv, SecondOrderConv
from gfbgcn.nn.conv.gfb_conv import GFBConv
from gfbgcn.nn.conv.gfb_rgcn_conv import GFBRGCNConv
from gfbgcn.nn.conv.gfb_sage_conv import GFBSAGEConv
from gfbgcn.nn.conv.sqrt_gcn_conv import SqrtGCNConv
from gfbgcn.nn.conv.weighted_gin_conv import WeightedGINConv

__all__ = [
    "BPConv",
    "CBPConv",
    "CachedTransposeGCNConv",
    "FBPConv",
    "GCNNormConv",
    "GFBConv",
    "GFBRGCNConv",
    "GFBSAGEConv",
    "SecondOrderConv",
    "SqrtGCNConv",
    "WeightedGINConv",
]

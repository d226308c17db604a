"""PyTorch Geometric layers of the GFB-GCN paper."""

from gfbgcn.nn.genvec import SUMMARIZERS, genvec, genvec_reference

__all__ = ["SUMMARIZERS", "genvec", "genvec_reference"]

"""Whole models built from the layers of :mod:`gfbgcn.nn.conv`."""

from gfbgcn.nn.models.entity_net import EntityNet
from gfbgcn.nn.models.feature_text_gcn import FeatureTextGCN
from gfbgcn.nn.models.graph_classifier import GraphClassifier
from gfbgcn.nn.models.text_gcn import TwoLayerTextGCN
from gfbgcn.nn.models.text_gin import TextGIN
from gfbgcn.nn.models.text_sgc import TextSGC

__all__ = ["EntityNet", "FeatureTextGCN", "GraphClassifier", "TextGIN", "TextSGC",
           "TwoLayerTextGCN"]

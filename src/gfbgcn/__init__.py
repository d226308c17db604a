"""gfbgcn: Graph Convolutional Networks with Generalized Factorized Bilinear aggregation."""

__version__ = "0.1.0"

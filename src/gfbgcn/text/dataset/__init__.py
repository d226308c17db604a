"""The text graph without training: :func:`build_graph` for any corpus, and
:class:`TextGraphDataset`, a benchmark's graph as a PyTorch Geometric dataset."""

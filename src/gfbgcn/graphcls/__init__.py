"""Graph classification (supplement, Table "Results for the problem of graph classification").

* :mod:`.data`: TU data sets (PyG ``TUDataset``) and COLLAB from its S2V zip, node features.
* :mod:`.s2v`: vectorised reader of the S2V/DGCNN/GIN text format inside a zip.
* :mod:`.models`: GCN / GraphSAGE / GFB-GCN / GFB-GraphSAGE classifiers (global mean pooling).
* :mod:`.protocol`: stratified 10-fold CV, validation fold, training, per-fold selection.
* :mod:`.report`, :mod:`.cli`: ``gfbgcn reproduce graphs`` and ``docs/results/graphs.md``.
"""

"""Graph classification (supplement, Table "Results for the problem of graph classification").

* :mod:`.data`: TU-format data sets (PyG ``TUDataset``, or an S2V zip as for COLLAB) with the
  protocol's node features; :mod:`.s2v`: the vectorised S2V reader; :mod:`.batching`: mini-batches
  gathered from one concatenation of all graphs.
* :mod:`.model`: GCN / GraphSAGE / GFB-GCN / GFB-GraphSAGE classifiers by name
  (:class:`~gfbgcn.nn.models.GraphClassifier`).
* :mod:`.train`: stratified K-fold splits with a validation fold, one training run.
* :mod:`.batched`: several runs that draw the same mini-batches (a fold's configurations of one
  model) trained as one model, each as :mod:`.train` trains it; :mod:`.stacked`: that model,
  the members' parameters stacked per width.

The paper's grid, its per-fold selection and its report are in :mod:`gfbgcn.reproduce.graphs`.
"""

"""Prediction of documents outside the training graph: the inductive Text GCN, the graph model
combined with the linear baseline, and the saved model directory that holds either."""

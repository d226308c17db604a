"""Training on the text graph: full batch, mini-batch, distributed, features, checks."""

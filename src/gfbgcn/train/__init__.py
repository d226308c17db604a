"""Training utilities shared by all tasks: early stopping, metrics, resumable run grids."""

from gfbgcn.train.early_stopping import EarlyStopping
from gfbgcn.train.metrics import classification_metrics
from gfbgcn.train.store import RunStore

__all__ = ["EarlyStopping", "RunStore", "classification_metrics"]

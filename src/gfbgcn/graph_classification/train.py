"""The paper's evaluation protocol for graph classification.

Supplement, "Graph Classification": "10-fold cross validation ... We randomly sample a training
fold to serve as a validation set ... we tune (1) the number of hidden units in {16, 32, 64,
128} and (2) the number of layers in {1, ..., 5} with respect to the validation set."

Here:

* ``StratifiedKFold(n_splits=K, shuffle=True, random_state=seed)`` gives the K test folds;
* for test fold ``k`` one of the other K-1 folds, drawn with ``numpy.random.default_rng(seed +
  k)``, is the validation set; the remaining K-2 folds are the training set;
* every (hidden, layers) configuration is trained on the training set with Adam and early
  stopping on the validation loss (best weights restored);
* per test fold the configuration with the highest validation accuracy (ties: lower validation
  loss, then smaller model) is selected and its test accuracy is that fold's result
  (:mod:`gfbgcn.reproduce.graphs.experiment`);
* the table reports mean +- (population) std over folds of the selected test accuracies.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch.nn import functional as F
from torch_geometric.data import Data

from gfbgcn.core.device import device_name, resolve_device
from gfbgcn.core.early_stopping import EarlyStopping
from gfbgcn.core.runinfo import seed_everything
from gfbgcn.graph_classification.batching import GraphBatcher, GraphMiniBatch
from gfbgcn.graph_classification.model import build_classifier, count_parameters
from gfbgcn.nn.gfb import GFBMixin
from gfbgcn.nn.models import GraphClassifier


@dataclass(frozen=True)
class Split:
    """Graph indices of one CV fold (disjoint; together all graphs)."""

    fold: int
    train: np.ndarray
    val: np.ndarray
    test: np.ndarray


def make_splits(y: Sequence[int] | np.ndarray, folds: int = 10, seed: int = 0) -> list[Split]:
    """Stratified K-fold test folds, a validation fold drawn among the others, rest training
    (so ``folds`` >= 3: with 2 nothing would be left to train on)."""
    from sklearn.model_selection import StratifiedKFold

    if folds < 3:
        raise ValueError(f"folds must be >= 3 (one tests, one validates, the rest train), got "
                         f"{folds}")

    y = np.asarray(y)
    skf = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
    test_folds = [test for _, test in skf.split(np.zeros(len(y)), y)]
    out = []
    for k in range(folds):
        others = [j for j in range(folds) if j != k]
        v = int(np.random.default_rng(seed + k).choice(others))
        train = np.sort(np.concatenate([test_folds[j] for j in others if j != v]))
        out.append(Split(k, train, np.sort(test_folds[v]), np.sort(test_folds[k])))
    return out


@dataclass(frozen=True)
class GraphTrainConfig:
    """Optimisation settings shared by every run of a grid."""

    epochs: int = 100
    patience: int = 20
    lr: float = 0.01
    weight_decay: float = 0.0
    batch_size: int = 64
    dropout: float = 0.5


def adam(params: Iterable[torch.Tensor], cfg: GraphTrainConfig) -> torch.optim.Adam:
    """The protocol's optimiser: Adam with ``cfg.lr`` and ``cfg.weight_decay``."""
    return torch.optim.Adam(params, lr=cfg.lr, weight_decay=cfg.weight_decay)


class GraphTrainHooks:
    """The stages of :func:`train_one` a caller may replace to vary the protocol (the
    reproduction wing's experiments do); the base class is the protocol itself, bit for bit."""

    def build_model(self, model_name: str, num_features: int, hidden: int, layers: int,
                    num_classes: int, dropout: float) -> GraphClassifier:
        """The network, drawn (on the CPU) right after the run's seed is set."""
        return build_classifier(model_name, num_features, hidden, layers, num_classes, dropout)

    def optimizer(self, model: torch.nn.Module, cfg: GraphTrainConfig) -> torch.optim.Optimizer:
        """Adam over every parameter."""
        return adam(model.parameters(), cfg)

    def before_step(self, model: torch.nn.Module) -> None:
        """After each mini-batch's backward pass, before the optimiser step (the gradients
        are in place)."""

    def end_epoch(self, optimizer: torch.optim.Optimizer, epoch: int) -> None:
        """After each epoch's training pass (``epoch`` = 1, 2, ...), before its validation."""


@torch.no_grad()
def evaluate(
    model: GraphClassifier, batch: GraphMiniBatch, undirected: bool = False
) -> tuple[float, float]:
    """(mean cross-entropy, accuracy) of ``model`` on one collated batch of graphs (read from
    the device in one transfer)."""
    model.eval()
    logits = model(batch.x, batch.edge_index, batch.batch, undirected)
    y = batch.y
    loss = F.cross_entropy(logits, y)
    acc = (logits.argmax(-1) == y).float().mean()
    loss_value, acc_value = torch.stack([loss.to(torch.float64), acc.to(torch.float64)]).tolist()
    return loss_value, acc_value


def train_one(
    model_name: str,
    graphs: Sequence[Data],
    split: Split,
    num_features: int,
    num_classes: int,
    hidden: int,
    layers: int,
    cfg: GraphTrainConfig,
    seed: int,
    batcher: GraphBatcher | None = None,
    device: str | torch.device | None = "cpu",
    hooks: GraphTrainHooks | None = None,
) -> dict[str, Any]:
    """Train one configuration on ``split.train``; early-stop on ``split.val``; test once.

    ``batcher`` (built from ``graphs`` when not given) lets a grid concatenate the graphs once
    (and move them to ``device`` once).  The weights are drawn on the CPU and the shuffling
    uses a CPU generator, so a seed gives the same start and batch order on every device.
    ``hooks`` (:class:`GraphTrainHooks`) may replace stages of the protocol.
    Returns a JSON-able record with validation/test loss and accuracy, epochs, wall time.
    """
    start = time.perf_counter()
    device = resolve_device(device)
    gen = seed_everything(seed)
    batcher = (GraphBatcher(graphs) if batcher is None else batcher).to(device)
    hooks = hooks or GraphTrainHooks()
    model = hooks.build_model(model_name, num_features, hidden, layers, num_classes,
                              cfg.dropout).to(device)
    train_ids = torch.as_tensor(split.train, dtype=torch.long)
    val_batch = batcher.batch(split.val)
    stopper, epoch = _fit(model, batcher, train_ids, val_batch, cfg, hooks, gen)
    return run_record(model, stopper, epoch, val_batch, batcher.batch(split.test),
                      batcher.undirected, start, device)


def run_record(model: GraphClassifier, stopper: EarlyStopping, epochs_run: int,
               val_batch: GraphMiniBatch, test_batch: GraphMiniBatch, undirected: bool,
               start: float, device: torch.device) -> dict[str, Any]:
    """The record of a finished run: ``model`` (its chosen weights restored) evaluated on the
    validation and test graphs, its stopping, size and lambdas; ``seconds`` since ``start``
    (``time.perf_counter()``)."""
    val_loss, val_acc = evaluate(model, val_batch, undirected)
    test_loss, test_acc = evaluate(model, test_batch, undirected)
    lam = [float(c.lam.detach()) for c in model.convs if isinstance(c, GFBMixin)]
    return {
        "val_loss": val_loss,
        "val_acc": val_acc,
        "test_loss": test_loss,
        "test_acc": test_acc,
        "best_epoch": stopper.best_epoch,
        "epochs_run": epochs_run,
        "num_parameters": count_parameters(model),
        "lambda": lam,
        "seconds": time.perf_counter() - start,
        "device": device_name(device),
    }


def _train_epoch(model: GraphClassifier, batcher: GraphBatcher, train_ids: torch.Tensor,
                 opt: torch.optim.Optimizer, cfg: GraphTrainConfig, hooks: GraphTrainHooks,
                 gen: torch.Generator) -> None:
    """One pass over the training graphs in shuffled mini-batches."""
    model.train()
    for batch in batcher.shuffled_batches(train_ids, cfg.batch_size, gen):
        opt.zero_grad()
        logits = model(batch.x, batch.edge_index, batch.batch, batcher.undirected)
        loss = F.cross_entropy(logits, batch.y)
        loss.backward()
        hooks.before_step(model)
        opt.step()


def _fit(model: GraphClassifier, batcher: GraphBatcher, train_ids: torch.Tensor,
         val_batch: GraphMiniBatch, cfg: GraphTrainConfig, hooks: GraphTrainHooks,
         gen: torch.Generator) -> tuple[EarlyStopping, int]:
    """Epochs until early stopping on the validation loss (or a non-finite one); the best
    weights are restored.  Returns the stopper and the number of epochs run."""
    opt = hooks.optimizer(model, cfg)
    stopper = EarlyStopping(patience=cfg.patience, mode="min")
    epoch = 0
    for epoch in range(1, cfg.epochs + 1):
        _train_epoch(model, batcher, train_ids, opt, cfg, hooks, gen)
        hooks.end_epoch(opt, epoch)
        val_loss, _ = evaluate(model, val_batch, batcher.undirected)
        if not math.isfinite(val_loss) or stopper.step(val_loss, model, epoch):
            break
    stopper.restore(model)
    return stopper, epoch

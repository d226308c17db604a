"""Several runs of the protocol (:mod:`gfbgcn.graph_classification.train`) trained as one model.

**Which runs form a batch.**  Runs batched together must see the same mini-batches.  A run of
:func:`~gfbgcn.graph_classification.train.train_one` draws its batch order from a CPU generator
seeded with its seed, one permutation of its training graphs per epoch and nothing else, so
runs with one seed and one split see the same sequence of batches for as long as they train,
whatever their configuration.  In the grid that is the configurations (hidden width x layer
count) of one fold and one model: fold ``k`` trains every configuration from seed ``S + k``.
Runs of different folds share nothing (other seeds, other training graphs), so a batch is some
or all of the configurations of one (fold, model); :class:`~gfbgcn.graph_classification.
stacked.StackedClassifiers` computes them side by side.

**What stays each run's own**, so that a batched run equals :func:`train_one` with the same seed
(to rounding: the same sums grouped otherwise; bit for bit nothing is promised):

* initial weights: each member is built as ``train_one`` builds it, right after seeding torch's
  default generator with the seed;
* dropout: each member draws its masks from its own state of torch's default generator (of the
  device), the state its ``train_one`` would be in, swapped in around its dropout call;
* the optimiser: Adam acts element by element, so one Adam over the stacked parameters is
  every member's own Adam (same step count: members train from the same first step);
* early stopping: each member has its own :class:`~gfbgcn.core.early_stopping.EarlyStopping`
  on its own validation loss; a member that stops (patience spent, or a non-finite loss) leaves
  the stacked model, its rows taken out of the parameters and of Adam's state, so it no longer
  changes, and its best weights are restored into its own classifier;
* the record: each member's classifier is evaluated by :func:`~gfbgcn.graph_classification.
  train.run_record`, as ``train_one`` does; only ``seconds`` is the batch's wall time shared
  out equally among its runs, and ``batched_runs`` says how many trained together.

The caller's random generators are left as they were (the training runs inside a fork of them).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor
from torch.nn import functional as F
from torch_geometric.data import Data

from gfbgcn.core.device import resolve_device
from gfbgcn.core.early_stopping import EarlyStopping
from gfbgcn.core.runinfo import torch_seeded
from gfbgcn.graph_classification.batching import GraphBatcher, GraphMiniBatch
from gfbgcn.graph_classification.model import build_classifier
from gfbgcn.graph_classification.stacked import Carried, Dropout, StackedClassifiers
from gfbgcn.graph_classification.train import GraphTrainConfig, Split, adam, run_record
from gfbgcn.nn.models import GraphClassifier


@dataclass(frozen=True)
class BatchedRun:
    """One member's outcome: its record (the keys of ``train_one``'s, and ``batched_runs``),
    its validation loss and accuracy after each epoch it trained, and its classifier holding
    the weights early stopping chose."""

    record: dict[str, Any]
    history: list[tuple[float, float]]
    model: GraphClassifier


def dropout_generator(device: torch.device) -> torch.Generator:
    """torch's default generator on ``device``: the one ``F.dropout`` draws from there."""
    if device.type == "cuda":
        torch.cuda.init()  # the default generators exist once CUDA is initialised
        index = device.index if device.index is not None else torch.cuda.current_device()
        return torch.cuda.default_generators[index]
    return torch.random.default_generator


def train_batch(
    model_name: str,
    graphs: Sequence[Data],
    split: Split,
    num_features: int,
    num_classes: int,
    shapes: Sequence[tuple[int, int]],
    cfg: GraphTrainConfig,
    seed: int,
    batcher: GraphBatcher | None = None,
    device: str | torch.device | None = "cpu",
) -> list[BatchedRun]:
    """Train one run per ``(hidden, layers)`` of ``shapes``, all from ``seed`` on ``split``,
    as one batched model (module docstring); each as ``train_one(model_name, graphs, split,
    num_features, num_classes, hidden, layers, cfg, seed, batcher, device)`` would.

    Returns the runs in the order of ``shapes``.
    """
    if not shapes:
        raise ValueError("train_batch needs at least one (hidden, layers) shape")
    start = time.perf_counter()
    device = resolve_device(device)
    batcher = (GraphBatcher(graphs) if batcher is None else batcher).to(device)
    val_batch = batcher.batch(split.val)
    with torch_seeded(seed, device):  # the caller's generators come back afterwards
        models, states = _members(model_name, num_features, num_classes, shapes, cfg, seed,
                                  device)
        gen = torch.Generator().manual_seed(seed)  # train_one's batch order
        train_ids = torch.as_tensor(split.train, dtype=torch.long)
        stoppers, epochs, history = _fit(model_name, models, states, batcher, train_ids,
                                         val_batch, cfg, gen, device)
    test_batch = batcher.batch(split.test)
    records = [run_record(m, s, e, val_batch, test_batch, batcher.undirected, start, device)
               for m, s, e in zip(models, stoppers, epochs)]
    seconds = time.perf_counter() - start
    for record in records:
        record.update(seconds=seconds / len(records), batched_runs=len(records))
    return [BatchedRun(r, h, m) for r, h, m in zip(records, history, models)]


def _members(model_name: str, num_features: int, num_classes: int,
             shapes: Sequence[tuple[int, int]], cfg: GraphTrainConfig, seed: int,
             device: torch.device) -> tuple[list[GraphClassifier], list[Tensor]]:
    """Each member's classifier, drawn as ``train_one`` draws it (the CPU generator seeded with
    ``seed``, then the network), and the state of the device's default generator its dropout
    starts from (the CPU's after the draw; a GPU's, which the draw does not touch, as seeded).
    To be called inside a fork of the generators."""
    models, states = [], []
    dropout_gen = dropout_generator(device)
    for hidden, layers in shapes:
        torch.random.default_generator.manual_seed(seed)
        dropout_gen.manual_seed(seed)
        model = build_classifier(model_name, num_features, hidden, layers, num_classes,
                                 cfg.dropout)
        models.append(model.to(device))
        states.append(dropout_gen.get_state())
    return models, states


def _member_dropout(states: list[Tensor], p: float, device: torch.device) -> Dropout:
    """Member ``i``'s dropout: ``F.dropout`` drawing from member ``i``'s generator state
    ``states[i]``, which it advances (the device's default generator serves every member in
    turn: inside a fork, so nobody else's state is touched)."""
    gen = dropout_generator(device)

    def dropout(member: int, h: Tensor) -> Tensor:
        gen.set_state(states[member])
        out = F.dropout(h, p=p, training=True)
        states[member] = gen.get_state()
        return out

    return dropout


def member_losses(logits: Tensor, y: Tensor) -> Tensor:
    """Each member's mean cross-entropy: ``logits`` [M, B, C], ``y`` [B] -> [M]."""
    m, b, c = logits.shape
    return F.cross_entropy(logits.reshape(m * b, c), y.repeat(m), reduction="none").view(m, b) \
        .mean(1)


@torch.no_grad()
def _validate(model: StackedClassifiers, batch: GraphMiniBatch, undirected: bool
              ) -> tuple[list[float], list[float]]:
    """Each member's (validation loss, accuracy), as ``evaluate`` computes them, in the order
    of ``model.ids`` (read from the device in one transfer)."""
    logits = model(batch, undirected)
    loss = member_losses(logits, batch.y)
    acc = (logits.argmax(-1) == batch.y).float().mean(1)
    losses, accs = torch.stack([loss.to(torch.float64), acc.to(torch.float64)]).tolist()
    return losses, accs


def _train_epoch(model: StackedClassifiers, batcher: GraphBatcher, train_ids: Tensor,
                 opt: torch.optim.Optimizer, cfg: GraphTrainConfig, gen: torch.Generator,
                 dropout: Dropout) -> None:
    """One pass over the training graphs; the sum of the members' losses has each member's own
    loss gradient in that member's rows."""
    for batch in batcher.shuffled_batches(train_ids, cfg.batch_size, gen):
        opt.zero_grad()
        member_losses(model(batch, batcher.undirected, dropout), batch.y).sum().backward()
        opt.step()


def _fit(model_name: str, models: list[GraphClassifier], states: list[Tensor],
         batcher: GraphBatcher, train_ids: Tensor, val_batch: GraphMiniBatch,
         cfg: GraphTrainConfig, gen: torch.Generator, device: torch.device
         ) -> tuple[list[EarlyStopping], list[int], list[list[tuple[float, float]]]]:
    """Epochs until every member has stopped (as ``train_one``'s loop, per member); each
    member's classifier ends with its best weights.  Returns the stoppers, the epochs each
    member ran and each member's validation history."""
    stacked = StackedClassifiers(model_name, models)
    opt: torch.optim.Optimizer = adam(stacked.parameters(), cfg)
    dropout = _member_dropout(states, cfg.dropout, device)
    stoppers = [EarlyStopping(patience=cfg.patience, mode="min") for _ in models]
    epochs = [0] * len(models)
    history: list[list[tuple[float, float]]] = [[] for _ in models]
    for epoch in range(1, cfg.epochs + 1):
        _train_epoch(stacked, batcher, train_ids, opt, cfg, gen, dropout)
        losses, accs = _validate(stacked, val_batch, batcher.undirected)
        stopped = []
        for i, loss, acc in zip(stacked.ids, losses, accs):
            epochs[i] = epoch
            history[i].append((loss, acc))
            if math.isfinite(loss) and stoppers[i].improves(loss):
                stacked.write_member(i, models[i])  # the stopper copies the weights from there
            if not math.isfinite(loss) or stoppers[i].step(loss, models[i], epoch):
                stopped.append(i)
        if stopped:
            for i in stopped:
                stacked.write_member(i, models[i])  # its last weights, for a restore no-op
            carried = stacked.remove(stopped)
            if not carried:  # every member has stopped
                break
            opt = _carry_adam(opt, carried, cfg)
    for i in stacked.ids:  # ran every epoch
        stacked.write_member(i, models[i])
    for stopper, model in zip(stoppers, models):
        stopper.restore(model)
    return stoppers, epochs, history


def _carry_adam(opt: torch.optim.Optimizer, carried: list[Carried], cfg: GraphTrainConfig
                ) -> torch.optim.Optimizer:
    """A new Adam over the remaining stacked parameters whose state (moments and step count)
    is the old one's rows of the remaining members."""
    new = adam([c.new for c in carried], cfg)
    for c in carried:
        state = opt.state.get(c.old)
        if not state:
            continue
        new.state[c.new] = {
            name: value.index_select(0, c.keep)
            if c.keep is not None and isinstance(value, Tensor) and value.dim() > 0 else value
            for name, value in state.items()}
    return new


__all__ = ["BatchedRun", "dropout_generator", "member_losses", "train_batch"]

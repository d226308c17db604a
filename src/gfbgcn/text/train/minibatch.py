"""Mini-batch training of the two-layer text models on sampled subgraphs (``--batch-size``).

Each epoch shuffles the training documents (seeded by the run's seed and the epoch) and cuts
them into batches.  For a batch, :class:`~gfbgcn.text.train.sampler.SubgraphSampler` gives the exact
layer-2 rows of its documents and sampled layer-1 rows of the nodes those read; the model's own
``hidden``/``head`` (the same layers as full-batch training) run on them, and Adam steps once per
batch.  After every epoch the validation documents are evaluated on their exact layer-2 rows
over one fixed layer-1 sample (the same draws every epoch; an exact pass would cost a
full-graph product per epoch), and early stopping watches that validation loss as in
full-batch training, keeping the best weights.  The test metrics and the probabilities are
exact (layer 1 for all nodes in row chunks, no gradients), and the result is an ordinary :class:`~gfbgcn.text.train.full_batch.TrainResult`
(so ``--save`` and ``gfbgcn predict`` work unchanged).

Data parallel: with ``world > 1`` (see :mod:`gfbgcn.text.train.distributed`) every process takes the
slice ``batch[rank::world]`` of each batch and ``DistributedDataParallel`` averages gradients;
each process's loss is scaled so that the average is the gradient of the whole batch's mean
loss.  With dropout 0 the result equals a single process's run with the same batch size.
"""

from __future__ import annotations

import time

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from tqdm.auto import tqdm

from gfbgcn.core.early_stopping import EarlyStopping
from gfbgcn.core.metrics import classification_metrics
from gfbgcn.nn.models import TwoLayerTextGCN
from gfbgcn.nn.sparse import csr_rows
from gfbgcn.text.graph.text_graph import TextGraph
from gfbgcn.text.train.sampler import SubgraphSampler

__all__ = ["epoch_batches", "exact_doc_logits", "train_minibatch"]

#: Rows of ``Â`` per chunk of the exact (evaluation) forward pass.
EVAL_CHUNK_ROWS = 65_536


class _BatchForward(nn.Module):
    """``head(hidden(rows1), rows2)`` as a ``forward``, so DistributedDataParallel can wrap it."""

    def __init__(self, model: TwoLayerTextGCN) -> None:
        super().__init__()
        self.model = model

    def forward(self, layer1_rows: Tensor, layer2_rows: Tensor) -> Tensor:
        return self.model.head(self.model.hidden(layer1_rows), layer2_rows)


def epoch_batches(train_idx: Tensor, batch_size: int, seed: int, epoch: int) -> list[Tensor]:
    """The epoch's batches of training nodes: a permutation seeded by ``(seed, epoch)``."""
    gen = torch.Generator().manual_seed(seed * 1_000_003 + epoch)
    perm = train_idx[torch.randperm(len(train_idx), generator=gen)]
    return list(torch.split(perm, batch_size))


def _row_range(adj: Tensor, first: int, last: int) -> Tensor:
    """Rows ``first .. last - 1`` of a CSR matrix as a CSR sharing ``adj``'s column and value
    arrays (views: no copy of the entries, unlike :func:`csr_rows` of arbitrary rows)."""
    crow = adj.crow_indices()
    lo, hi = int(crow[first]), int(crow[last])
    return torch.sparse_csr_tensor(crow[first : last + 1] - lo, adj.col_indices()[lo:hi],
                                   adj.values()[lo:hi], (last - first, adj.shape[1]))


@torch.no_grad()
def exact_hidden(model: TwoLayerTextGCN, adj: Tensor) -> Tensor:
    """Layer 1 for every node, ``ReLU(Â W1)``, computed in row chunks (bounded temporaries)."""
    n = adj.shape[0]
    parts = [
        torch.relu(_row_range(adj, a, min(a + EVAL_CHUNK_ROWS, n)) @ model.w1)
        for a in range(0, n, EVAL_CHUNK_ROWS)
    ]
    return torch.cat(parts)


@torch.no_grad()
def exact_doc_logits(model: TwoLayerTextGCN, adj: Tensor, nodes: Tensor,
                     h: Tensor | None = None) -> Tensor:
    """Exact logits of ``nodes`` (evaluation mode), layer 2 in chunks of rows."""
    was_training = model.training
    model.eval()
    h = exact_hidden(model, adj) if h is None else h
    out = [model.head(h, csr_rows(adj, nodes[a:a + EVAL_CHUNK_ROWS]))
           for a in range(0, len(nodes), EVAL_CHUNK_ROWS)]
    model.train(was_training)
    return torch.cat(out) if out else torch.empty(0, model.conv2.out_channels)


def _train_epoch(step_fn: nn.Module, model: TwoLayerTextGCN, sampler: SubgraphSampler,
                 optimizer: torch.optim.Optimizer, targets: Tensor, batches: list[Tensor],
                 first_step: int, rank: int, world: int) -> tuple[float, float]:
    """One pass over ``batches``; ``(mean training loss, training accuracy)`` of this process."""
    model.train()
    loss_sum = correct = seen = 0.0
    for t, batch in enumerate(batches):
        mine = batch[rank::world]
        rows2, needed = sampler.batch_rows(mine)
        rows1 = sampler.sampled_rows(needed, first_step + t)
        optimizer.zero_grad(set_to_none=True)
        logits = step_fn(rows1, rows2)
        y = targets[mine]
        # the sum over this slice / the whole batch: DDP's mean over processes is then the
        # gradient of the whole batch's mean loss
        loss = F.cross_entropy(logits, y, reduction="sum") * (world / len(batch))
        loss.backward()
        optimizer.step()
        loss_sum += float(loss.detach()) * len(batch) / world
        correct += float((logits.argmax(1) == y).sum())
        seen += len(mine)
    return loss_sum / max(seen, 1), correct / max(seen, 1)


def fit_minibatch(model: TwoLayerTextGCN, optimizer: torch.optim.Optimizer, adj: Tensor,
                  targets: Tensor, train_idx: Tensor, val_idx: Tensor, config, progress: bool,
                  rank: int = 0, world: int = 1) -> tuple[list[dict[str, float]], EarlyStopping]:
    """The mini-batch training loop with exact validation and early stopping."""
    sampler = SubgraphSampler(adj, config.fanout, seed=config.seed)
    step_fn: nn.Module = _BatchForward(model)
    if world > 1:
        step_fn = nn.parallel.DistributedDataParallel(step_fn)
    # validation: the exact rows of the validation documents over one fixed sample of layer 1
    # (the same draws every epoch, so the loss compares weights, not samples); an exact pass
    # would cost a full-graph product per epoch, as much as full-batch training
    val_rows2, val_needed = sampler.batch_rows(val_idx)
    val_rows1 = sampler.sampled_rows(val_needed, step=-1)
    stopper = EarlyStopping(config.patience, mode="min" if config.monitor == "loss" else "max")
    history: list[dict[str, float]] = []
    steps = 0
    bar = tqdm(range(1, config.epochs + 1), desc=f"{config.model} (batch {config.batch_size})",
               disable=not progress or rank != 0, leave=False)
    for epoch in bar:
        t0 = time.perf_counter()
        batches = epoch_batches(train_idx, config.batch_size, config.seed, epoch)
        train_loss, train_acc = _train_epoch(step_fn, model, sampler, optimizer, targets,
                                             batches, steps, rank, world)
        steps += len(batches)
        with torch.no_grad():
            model.eval()
            val_logits = model.head(model.hidden(val_rows1), val_rows2)
            model.train()
        y_val = targets[val_idx]
        val_loss = float(F.cross_entropy(val_logits, y_val))
        val_acc = float((val_logits.argmax(1) == y_val).float().mean())
        stop = stopper.step(val_loss if config.monitor == "loss" else val_acc, model, epoch)
        history.append({"epoch": epoch, "train_loss": train_loss, "train_acc": train_acc,
                        "val_loss": val_loss, "val_acc": val_acc, "batches": len(batches),
                        "seconds": time.perf_counter() - t0})
        bar.set_postfix(loss=f"{train_loss:.4f}", val_loss=f"{val_loss:.4f}",
                        val_acc=f"{val_acc:.4f}")
        if stop:
            break
    bar.close()
    stopper.restore(model)
    return history, stopper


def train_minibatch(graph: TextGraph, config, *, progress: bool = True,
                    adj: Tensor | None = None):
    """:func:`gfbgcn.text.train.full_batch.train_text` with ``config.batch_size`` documents per step;
    data-parallel when a process group is initialised (:mod:`gfbgcn.text.train.distributed`)."""
    from gfbgcn.text.train.distributed import rank_and_world
    from gfbgcn.text.train.checks import check_converged
    from gfbgcn.text.train.full_batch import _prepare, fitted_result

    rank, world = rank_and_world()

    setup = _prepare(graph, config, adj, None, torch.device("cpu"))  # CPU only, see train_text
    model = setup.model
    if not isinstance(model, TwoLayerTextGCN):
        raise ValueError(f"--batch-size supports the two-layer models, not {config.model}")
    start = time.perf_counter()
    history, stopper = fit_minibatch(model, setup.optimizer, setup.adj, setup.targets,
                                     setup.train_idx, setup.val_idx, config, progress,
                                     rank, world)
    check_converged(stopper.best_epoch, history, config.lr)
    train_seconds = time.perf_counter() - start
    docs = torch.arange(graph.num_docs)
    logits = exact_doc_logits(model, setup.adj, docs)
    pred, y = logits.argmax(1).numpy(), setup.targets[: graph.num_docs].numpy()
    vi, ti = setup.val_idx.numpy(), setup.test_idx.numpy()
    return fitted_result(config, history, stopper.best_epoch, train_seconds,
                         classification_metrics(y[ti], pred[ti], setup.num_classes),
                         classification_metrics(y[vi], pred[vi], setup.num_classes), model,
                         torch.softmax(logits, 1).numpy().astype(np.float32))

"""Mini-batch training of the two-layer text models on sampled subgraphs (``--batch-size``).

Each epoch shuffles the training documents (seeded by the run's seed and the epoch) and cuts
them into batches, and draws one layer-1 sample of every node's row of ``Â``
(:meth:`~gfbgcn.text.train.sampler.SubgraphSampler.presample`, keyed by the epoch: at most
``fanout`` weighted entries a row).  For a batch, the sampler gives the exact layer-2 rows of its
documents, and the layer-1 rows of the nodes those read are taken from the epoch's sample; the
model's own ``hidden``/``head`` (the same layers as full-batch training) run on them, and the
optimiser steps once per batch.  Each step's estimate of ``Â_S W1`` is unbiased; steps of one
epoch share their nodes' draws (drawing once per epoch instead of once per step is what makes
a mini-batch epoch cheaper than a full-batch one, ``docs/benchmarks.md``).  After every epoch
the validation documents are evaluated on
their exact layer-2 rows over one fixed layer-1 sample (the same draws every epoch; an exact
pass would cost a full-graph product per epoch), and early stopping watches that validation
loss as in full-batch training, keeping the best weights.  The test metrics and the
probabilities are exact (layer 1 for all nodes in row chunks, no gradients), and the result is
an ordinary :class:`~gfbgcn.text.train.config.TrainResult` (so ``--save`` and
``gfbgcn predict`` work unchanged).

Memory: the process holds ``Â`` with int32 indices (8 bytes an entry), the sampler's float32
cumulative weights (4 bytes an entry) and the model; the graph's edge arrays go back to the
cache file once ``Â`` exists (:meth:`~gfbgcn.text.graph.text_graph.TextGraph.release_edges`).
With ``--optimizer sparse-adam`` a step reads ``W1`` only at the columns of its layer-1 rows and
updates those rows (:mod:`gfbgcn.text.train.optim`); ``--row-budget K`` keeps at most ``K`` of
those columns per step (:mod:`gfbgcn.text.train.row_budget`), so that a step's cost does not
grow with the graph.

Devices: the sampler runs where ``Â`` is (the CPU unless the caller passes ``Â`` on a GPU);
each batch's rows are moved to the training device, which holds the model, its optimiser state
and the targets.  A seed gives the same batches and draws on every device.

Data parallel: with ``world > 1`` (see :mod:`gfbgcn.text.train.distributed`) every process takes
the slice ``batch[rank::world]`` of each batch and ``DistributedDataParallel`` averages
gradients; each process's loss is scaled so that the average is the gradient of the whole
batch's mean loss.  With dropout 0 the result equals a single process's run with the same batch
size.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn

from gfbgcn.core.early_stopping import EarlyStopping
from gfbgcn.core.errors import OptionError
from gfbgcn.core.progress import progress_bar
from gfbgcn.nn.losses import cross_entropy
from gfbgcn.nn.models import FeatureTextGCN, TwoLayerTextGCN
from gfbgcn.nn.sparse import csr_rows, spmm
from gfbgcn.text.graph.text_graph import TextGraph
from gfbgcn.text.train.checks import check_finite_loss
from gfbgcn.text.train.features.inputs import DocInput
from gfbgcn.text.train.hooks import EpochCallback
from gfbgcn.text.train.row_budget import limit_rows
from gfbgcn.text.train.sampler import SubgraphSampler, local_columns

__all__ = ["epoch_batches", "exact_doc_logits", "train_minibatch"]

#: Rows of ``Â`` per chunk of the exact (evaluation) forward pass.
EVAL_CHUNK_ROWS = 65_536


def _shared_embedding(w1: nn.Parameter) -> nn.Embedding:
    """An ``nn.Embedding(sparse=True)`` whose weight *is* ``w1`` (no copy): lookups give
    ``w1`` a row-sparse gradient, and DistributedDataParallel knows to expect one."""
    embedding = nn.Embedding(w1.shape[0], w1.shape[1], sparse=True, device="meta")
    embedding.weight = w1
    return embedding


class _BatchForward(nn.Module):
    """``head(hidden(rows1), rows2)`` as a ``forward``, so DistributedDataParallel can wrap it.

    ``sparse``: layer 1 reads ``W1`` (and the feature term of
    :class:`~gfbgcn.nn.models.FeatureTextGCN`) only at the columns ``C`` its rows use:
    ``ReLU(Â_S,C (W1[C] + F[C] W2))``, with a row-sparse gradient for ``W1``."""

    def __init__(self, model: TwoLayerTextGCN, sparse: bool = False) -> None:
        super().__init__()
        if sparse:  # registered before the model: DDP attributes W1 to the embedding
            self.embedding = _shared_embedding(model.w1)
        self.sparse = sparse
        self.model = model

    def _input_rows(self, columns: Tensor) -> Tensor:
        x = self.embedding(columns) if self.sparse else self.model.w1[columns]
        if isinstance(self.model, FeatureTextGCN):
            x = x + self.model.feature_rows(columns)
        return x

    def forward(self, layer1_rows: Tensor, layer2_rows: Tensor,
                columns: Tensor | None = None) -> Tensor:
        if columns is None:
            h = self.model.hidden(layer1_rows)
        else:
            h = F.relu(spmm(layer1_rows, self._input_rows(columns)))
        return self.model.head(h, layer2_rows)


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
    """Layer 1 for every node, ``ReLU(Â X W)`` ``[N, hidden]`` on the model's device, computed
    in row chunks of ``Â`` (bounded temporaries; each chunk moved to the device)."""
    n, x = adj.shape[0], model.input_weight()
    out = x.new_empty((n, x.shape[1]))  # filled block by block: no second copy to concatenate
    for a in range(0, n, EVAL_CHUNK_ROWS):
        b = min(a + EVAL_CHUNK_ROWS, n)
        out[a:b] = torch.relu(_row_range(adj, a, b).to(x.device) @ x)
    return out


@torch.no_grad()
def exact_doc_logits(model: TwoLayerTextGCN, adj: Tensor, nodes: Tensor,
                     h: Tensor | None = None) -> Tensor:
    """Exact logits ``[len(nodes), C]`` of ``nodes`` (evaluation mode, on the model's device),
    layer 2 in chunks of rows."""
    was_training = model.training
    model.eval()
    h = exact_hidden(model, adj) if h is None else h
    nodes = nodes.to(adj.device)
    out = [model.head(h, csr_rows(adj, nodes[a:a + EVAL_CHUNK_ROWS]).to(h.device))
           for a in range(0, len(nodes), EVAL_CHUNK_ROWS)]
    model.train(was_training)
    return torch.cat(out) if out else torch.empty(0, model.conv2.out_channels, device=h.device)


@dataclass
class _Loop:
    """What every training step works with."""

    step_fn: nn.Module
    model: TwoLayerTextGCN
    sampler: SubgraphSampler
    optimizer: Any
    targets: Tensor  # [num_nodes] on the training device
    device: torch.device
    sparse: bool
    rank: int = 0
    world: int = 1
    row_budget: int = 0
    weights: Tensor | None = None  # [num_docs] loss weights on the training device

    def inputs(self, nodes: Tensor, layer1: Tensor, epoch: int = 0, step: int = 0
               ) -> tuple[Tensor, ...]:
        """``(layer-1 rows, layer-2 rows[, columns])`` of a batch, on the training device;
        ``layer1``: the epoch's layer-1 sample of every node (:meth:`SubgraphSampler.presample`);
        with a row budget, the rows of both layers keep about that many columns
        (:func:`~gfbgcn.text.train.row_budget.limit_rows`, drawn by ``(epoch, step, layer)``)."""
        key = (self.sampler.seed, epoch, step)
        rows2, needed = self.sampler.batch_rows(nodes)
        if self.row_budget:
            rows2, kept = limit_rows(rows2, self.row_budget, *key, 2)
            needed = needed[kept]
        rows1 = csr_rows(layer1, needed)
        # sparse input features: F W2 at the columns the rows use only, never for every node
        local = self.sparse or getattr(self.model, "sparse_features", False)
        if not (local or self.row_budget):
            return rows1.to(self.device), rows2.to(self.device)
        rows1, columns = local_columns(rows1)
        if self.row_budget:
            rows1, kept = limit_rows(rows1, self.row_budget, *key, 1)
            columns = columns[kept]
        if not local:  # dense W1: the kept rows over W1's global rows again
            rows1 = torch.sparse_csr_tensor(rows1.crow_indices(), columns[rows1.col_indices()],
                                            rows1.values(), (len(needed), self.sampler.num_nodes))
            return rows1.to(self.device), rows2.to(self.device)
        return rows1.to(self.device), rows2.to(self.device), columns.to(self.device)


def _train_epoch(loop: _Loop, batches: list[Tensor], epoch: int) -> tuple[float, float]:
    """One pass over ``batches``; ``(mean training loss, training accuracy)`` of this process.
    Layer 1 of every step reads the epoch's sample, drawn once (keyed by the epoch)."""
    loop.model.train()
    loss_sum = correct = seen = 0.0
    layer1 = loop.sampler.presample(step=epoch)
    for step, batch in enumerate(batches):
        mine = batch[loop.rank::loop.world]
        inputs = loop.inputs(mine, layer1, epoch, step)
        loop.optimizer.zero_grad(set_to_none=True)
        logits = loop.step_fn(*inputs)
        y = loop.targets[mine.to(loop.device)]
        # the sum over this slice / the whole batch: DDP's mean over processes is then the
        # gradient of the whole batch's mean loss (weighted: the sum of w l over this slice
        # / the sum of w over the whole batch, the batch's weighted mean)
        if loop.weights is None:
            loss = F.cross_entropy(logits, y, reduction="sum") * (loop.world / len(batch))
        else:
            total = loop.weights[batch.to(loop.device)].sum().clamp_min(1e-30)
            loss = (F.cross_entropy(logits, y, reduction="none")
                    * loop.weights[mine.to(loop.device)]).sum() * (loop.world / total)
        loss.backward()
        loop.optimizer.step()
        loss_sum += float(loss.detach()) * len(batch) / loop.world
        correct += float((logits.argmax(1) == y).sum())
        seen += len(mine)
    return loss_sum / max(seen, 1), correct / max(seen, 1)


def _validate(loop: _Loop, val_rows: tuple[Tensor, Tensor], y_val: Tensor,
              w_val: Tensor | None = None) -> tuple[float, float]:
    """``(loss, accuracy)`` of the validation documents on their fixed layer-1 sample (the
    loss weighted by ``w_val`` when given)."""
    with torch.no_grad():
        loop.model.eval()
        logits = loop.model.head(loop.model.hidden(val_rows[0]), val_rows[1])
        loop.model.train()
    return (float(cross_entropy(logits, y_val, w_val)),
            float((logits.argmax(1) == y_val).float().mean()))


def fit_minibatch(loop: _Loop, train_idx: Tensor, val_idx: Tensor, config, progress: bool,
                  on_epoch: EpochCallback | None = None
                  ) -> tuple[list[dict[str, float]], EarlyStopping]:
    """The mini-batch training loop with exact validation and early stopping; ``on_epoch``:
    given each epoch's history entry as soon as it is recorded."""
    # validation: the exact rows of the validation documents over one fixed sample of layer 1
    # (the same draws every epoch, so the loss compares weights, not samples); an exact pass
    # would cost a full-graph product per epoch, as much as full-batch training
    val_rows2, val_needed = loop.sampler.batch_rows(val_idx)
    val_rows = (loop.sampler.sampled_rows(val_needed, step=-1).to(loop.device),
                val_rows2.to(loop.device))
    y_val = loop.targets[val_idx.to(loop.device)]
    w_val = None if loop.weights is None else loop.weights[val_idx.to(loop.device)]
    stopper = EarlyStopping(config.patience, mode="min" if config.monitor == "loss" else "max")
    history: list[dict[str, float]] = []
    bar = progress_bar(range(1, config.epochs + 1),
                       desc=f"{config.model} (batch {config.batch_size})",
                       show=progress and loop.rank == 0, leave=False)
    for epoch in bar:
        t0 = time.perf_counter()
        batches = epoch_batches(train_idx, config.batch_size, config.seed, epoch)
        train_loss, train_acc = _train_epoch(loop, batches, epoch)
        val_loss, val_acc = _validate(loop, val_rows, y_val, w_val)
        check_finite_loss(epoch, train_loss, val_loss, config)  # every rank: the same values
        stop = stopper.step(val_loss if config.monitor == "loss" else val_acc, loop.model, epoch)
        history.append({"epoch": epoch, "train_loss": train_loss, "train_acc": train_acc,
                        "val_loss": val_loss, "val_acc": val_acc, "batches": len(batches),
                        "seconds": time.perf_counter() - t0})
        if on_epoch is not None:
            on_epoch(dict(history[-1]))
        bar.set_postfix(loss=f"{train_loss:.4f}", val_loss=f"{val_loss:.4f}",
                        val_acc=f"{val_acc:.4f}")
        if stop:
            break
    bar.close()
    stopper.restore(loop.model)
    return history, stopper


def released_adjacency(graph: TextGraph, adj: Tensor | None = None) -> Tensor:
    """``adj``, or ``Â`` with int32 indices where they fit, built from the graph's edge arrays
    read back from its cache file, which then leave this process's memory (``release_edges``)."""
    from gfbgcn.text.graph.adjacency import graph_adjacency

    if adj is not None:
        return adj
    graph.release_edges()  # the int64 arrays of a fresh build, if any: back to the file
    adj = graph_adjacency(graph)  # int32 indices where they fit
    graph.release_edges()  # the pages read to build Â
    return adj


def _data_parallel(device: torch.device, config) -> tuple[torch.device, Any, int, int]:
    """``(device, DDP process group, rank, world)`` of this process."""
    from gfbgcn.text.train.distributed import data_parallel_device, rank_and_world

    rank, world = rank_and_world()
    group = None
    if world > 1:
        device, group = data_parallel_device(device)
        if group is not None and config.optimizer == "sparse-adam":
            raise OptionError("{0} sparse-adam cannot average its row-sparse gradients "
                              "over NCCL; use {0} adam for multi-GPU training", "optimizer")
    return device, group, rank, world


def _step_module(model: TwoLayerTextGCN, sparse: bool, device: torch.device, group: Any,
                 world: int) -> nn.Module:
    step_fn: nn.Module = _BatchForward(model, sparse)
    if world > 1:
        ids = [device.index] if device.type == "cuda" else None
        step_fn = nn.parallel.DistributedDataParallel(step_fn, device_ids=ids,
                                                      process_group=group)
    return step_fn


def train_minibatch(graph: TextGraph, config, *, progress: bool = True,
                    adj: Tensor | None = None, device: torch.device | None = None,
                    doc_input: DocInput | None = None, sample_weight: np.ndarray | None = None,
                    on_epoch: EpochCallback | None = None):
    """:func:`gfbgcn.text.train.run.train_text` with ``config.batch_size`` documents per step on
    ``device`` (default the CPU); data-parallel when a process group is initialised
    (:mod:`gfbgcn.text.train.distributed`); each batch's loss weighted by its documents'
    weights where the run has them (``sample_weight``, ``config.class_weight``); ``on_epoch``:
    :data:`~gfbgcn.text.train.hooks.EpochCallback`."""
    from gfbgcn.core.device import device_name
    from gfbgcn.core.metrics import classification_metrics, test_metrics
    from gfbgcn.text.train.checks import check_batch_size, check_converged
    from gfbgcn.text.train.optim import release_state
    from gfbgcn.text.train.setup import fitted_result, prepare_run

    check_batch_size(graph.is_train, config.batch_size, config.val_ratio,  # before any work
                     len(graph.validation_docs(config.val_ratio, config.seed)))
    device, group, rank, world = _data_parallel(device or torch.device("cpu"), config)
    adj = released_adjacency(graph, adj)
    setup = prepare_run(graph, config, adj, None, device, adj_device=adj.device, row_adj=False,
                        doc_input=doc_input, sample_weight=sample_weight)
    model = setup.model
    if not isinstance(model, TwoLayerTextGCN):  # TrainConfig refuses batch_size for the others
        raise TypeError(f"mini-batch training needs a TwoLayerTextGCN, got {type(model).__name__}")
    sparse = config.optimizer == "sparse-adam"
    loop = _Loop(_step_module(model, sparse, device, group, world), model,
                 SubgraphSampler(setup.adj, config.fanout, seed=config.seed), setup.optimizer,
                 setup.targets, device, sparse, rank, world, config.row_budget, setup.weights)
    start = time.perf_counter()
    history, stopper = fit_minibatch(loop, setup.train_idx, setup.val_idx, config, progress,
                                     on_epoch)
    check_converged(stopper.best_epoch, history, config.lr)
    train_seconds = time.perf_counter() - start
    del loop
    release_state(setup.optimizer, model)
    logits = exact_doc_logits(model, setup.adj, torch.arange(graph.num_docs)).cpu()
    pred, y = logits.argmax(1).numpy(), setup.targets[: graph.num_docs].cpu().numpy()
    vi, ti = setup.val_idx.cpu().numpy(), setup.test_idx.cpu().numpy()
    return fitted_result(config, history, stopper.best_epoch, train_seconds,
                         test_metrics(y[ti], pred[ti], setup.num_classes),
                         classification_metrics(y[vi], pred[vi], setup.num_classes), model,
                         torch.softmax(logits, 1).numpy().astype(np.float32),
                         device=device_name(device))

"""``train_text``: one training run on a text graph, full batch or mini-batch."""

from __future__ import annotations

import numpy as np
import torch

from gfbgcn.core.device import resolve_device
from gfbgcn.core.errors import phase
from gfbgcn.core.runinfo import torch_seeded
from gfbgcn.text.graph.text_graph import TextGraph
from gfbgcn.text.train.config import TrainConfig, TrainResult
from gfbgcn.text.train.features.inputs import DocInput
from gfbgcn.text.train.full_batch import StopRule, train_full_batch
from gfbgcn.text.train.hooks import EpochCallback, TrainHooks
from gfbgcn.text.train.minibatch import train_minibatch


def train_text(
    graph: TextGraph,
    config: TrainConfig,
    *,
    progress: bool = True,
    adj: torch.Tensor | None = None,
    multilabel_targets: np.ndarray | None = None,
    device: str | torch.device | None = None,
    hooks: TrainHooks | None = None,
    stop_rule: StopRule | None = None,
    doc_input: DocInput | None = None,
    sample_weight: np.ndarray | None = None,
    on_epoch: EpochCallback | None = None,
) -> TrainResult:
    """Train ``config.model`` on ``graph`` and evaluate it on the test documents.

    ``device``: ``auto`` (default: the first CUDA GPU if torch sees one, else the CPU),
    ``cpu``, ``cuda`` or ``cuda:N`` (see :mod:`gfbgcn.core.device`); the returned model stays
    there.  ``adj`` (the normalised adjacency) may be passed in to share it between runs
    (passing it already on ``device`` saves a copy per run).
    ``config.batch_size > 0`` trains on sampled subgraphs (:mod:`gfbgcn.text.train.minibatch`):
    the sampler works where ``adj`` is (built on the CPU when not passed), the model on
    ``device``; the graph's edge arrays are then released to its cache file
    (:meth:`TextGraph.release_edges`).
    ``multilabel_targets`` (``[num_docs, L]`` 0/1, see :mod:`gfbgcn.text.corpus.labels`) switches
    to multi-label training: BCE-with-logits, sigmoid outputs, micro/macro F1 and subset
    accuracy at a threshold chosen on the validation documents.
    ``hooks`` (full batch only): called once before the first epoch and in each epoch
    between validation and the optimiser step (:class:`gfbgcn.text.train.hooks.TrainHooks`).

    ``config.seed`` seeds the weights, dropout and validation split through generators of the
    run's own: the caller's ``random``, ``numpy.random`` and torch generator states are the same
    after the run as before (:func:`gfbgcn.core.runinfo.torch_seeded`).

    ``stop_rule`` (full batch only; ignored in mini-batch): may end training early
    (:data:`gfbgcn.text.train.full_batch.StopRule`).
    ``doc_input``: the documents' input rows, required by ``config.features == "ngram"``
    (:func:`gfbgcn.text.train.features.ngrams.ngram_input`).

    ``sample_weight`` ``[num_docs]``: each document's weight in the training and validation
    losses, times its class's (``config.class_weight``); the losses are then weighted means
    (:mod:`gfbgcn.nn.losses`, :mod:`gfbgcn.text.corpus.weights`).  The metrics are
    not weighted.
    ``on_epoch``: called with each epoch's history entry as soon as it is recorded, full batch
    and mini-batch (:data:`gfbgcn.text.train.hooks.EpochCallback`).
    """
    device = resolve_device(device)
    with phase(f"training {config.model}"), torch_seeded(config.seed, device):
        if config.batch_size:
            if multilabel_targets is not None:
                raise ValueError("mini-batch training (batch_size > 0) is single-label only")
            if hooks is not None:
                raise ValueError("hooks are for full-batch training (batch_size 0)")
            return train_minibatch(graph, config, progress=progress, adj=adj, device=device,
                                   doc_input=doc_input, sample_weight=sample_weight,
                                   on_epoch=on_epoch)
        return train_full_batch(graph, config, progress=progress, adj=adj,
                                multilabel_targets=multilabel_targets, device=device,
                                hooks=hooks, stop_rule=stop_rule, doc_input=doc_input,
                                sample_weight=sample_weight, on_epoch=on_epoch)

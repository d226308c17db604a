"""One training run's set-up (model, optimiser, Â, targets, splits on the device) and its result."""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from gfbgcn.core.errors import UserError
from gfbgcn.core.runinfo import peak_rss_mib
from gfbgcn.nn.conv.weighted_gin_conv import WeightedGINConv
from gfbgcn.nn.models.text_gcn import TwoLayerTextGCN
from gfbgcn.nn.sparse import csr_rows, to_device
from gfbgcn.text.corpus.weights import document_weights
from gfbgcn.text.graph.adjacency import graph_adjacency
from gfbgcn.text.graph.text_graph import TextGraph
from gfbgcn.text.train.checks import check_split
from gfbgcn.text.train.config import TrainConfig, TrainResult
from gfbgcn.text.train.features.inputs import DocInput, node_features
from gfbgcn.text.train.models import build_text_model
from gfbgcn.text.train.optim import RowSparseAdam, make_optimizer


@dataclass
class RunSetup:
    """Everything one training run works on (built by :func:`prepare_run`)."""

    model: torch.nn.Module
    optimizer: torch.optim.Optimizer | RowSparseAdam
    adj: torch.Tensor
    targets: torch.Tensor  # [num_nodes] class ids, or [num_docs, L] 0/1 (multi-label)
    multi: bool
    num_classes: int
    train_idx: torch.Tensor
    val_idx: torch.Tensor
    test_idx: torch.Tensor
    row_adj: tuple[torch.Tensor, torch.Tensor] | None  # rows of Â for train / val documents
    device: torch.device
    #: [num_docs] (multi-label [num_docs, L]) loss weights on the device; None: unweighted
    weights: torch.Tensor | None = None


def prepare_run(graph: TextGraph, config: TrainConfig, adj: torch.Tensor | None,
                multilabel_targets: np.ndarray | None, device: torch.device, *,
                adj_device: torch.device | None = None, row_adj: bool = True,
                doc_input: DocInput | None = None,
                sample_weight: np.ndarray | None = None) -> RunSetup:
    """Model, optimiser, ``Â``, targets and document indices, all on ``device`` (``Â`` on
    ``adj_device`` when given: mini-batch training samples it where it is); ``row_adj``: also
    the rows of ``Â`` of the training and validation documents (full-batch training);
    ``doc_input``: the documents' input rows of ``features="ngram"``; ``sample_weight``
    ``[num_docs]``: each document's loss weight, times its class's (``config.class_weight``;
    :func:`~gfbgcn.text.corpus.weights.document_weights`).

    The weights are drawn on the CPU and then moved, so a seed gives the same initial weights
    on every device: from torch's default generator, which the caller
    (:func:`gfbgcn.text.train.run.train_text`) has seeded with ``config.seed`` for the run."""
    data = graph.to_data(config.val_ratio, config.seed, edges=False)
    if adj is None:
        adj = graph_adjacency(graph)
    adj = to_device(adj, adj_device or device)  # no copy when the caller's is already there
    multi = multilabel_targets is not None
    targets = data.y
    if multi:
        targets = torch.as_tensor(np.asarray(multilabel_targets), dtype=torch.float32)
        if targets.shape[0] != graph.num_docs:
            raise ValueError(f"multilabel_targets has {targets.shape[0]} rows, "
                             f"graph {graph.num_docs} documents")
    num_classes = targets.shape[1] if multi else len(graph.label_names)
    targets = targets.to(device)
    model = build_text_model(config.model, data.num_nodes, num_classes, config.hidden,
                             config.dropout,
                             features=node_features(graph, config.features, doc_input),
                             feature_source=doc_input.source if doc_input else None,
                             **dict(config.layer_options)).to(device)
    if not config.train_lambda:
        for p in lambda_parameters(model):
            p.requires_grad_(False)
    optimizer = make_optimizer(model, config)
    train_idx = data.train_mask.nonzero().view(-1)
    val_idx = data.val_mask.nonzero().view(-1)
    check_split(graph.labels, graph.label_names, train_idx.numpy(), val_idx.numpy(),
                config.val_ratio, multi)
    weights = loss_weights(graph, config, sample_weight, multilabel_targets,
                           train_idx.numpy(), val_idx.numpy())
    train_idx, val_idx = train_idx.to(adj.device), val_idx.to(adj.device)
    rows = None
    if row_adj and isinstance(model, TwoLayerTextGCN) and adj.layout == torch.sparse_csr:
        rows = (csr_rows(adj, train_idx), csr_rows(adj, val_idx))
    return RunSetup(model, optimizer, adj, targets, multi, num_classes, train_idx, val_idx,
                    data.test_mask.nonzero().view(-1).to(adj.device), rows, device,
                    None if weights is None else torch.from_numpy(weights).to(device))


def loss_weights(graph: TextGraph, config: TrainConfig, sample_weight: np.ndarray | None,
                 targets: np.ndarray | None, train: np.ndarray, val: np.ndarray
                 ) -> np.ndarray | None:
    """The documents' loss weights (:func:`~gfbgcn.text.corpus.weights.document_weights`;
    None: unweighted); a :class:`UserError` when the training or the validation documents
    weigh nothing in all (nothing to learn from, or early stopping with nothing to watch)."""
    if sample_weight is not None and len(sample_weight) != graph.num_docs:
        raise ValueError(f"sample_weight has {len(sample_weight)} rows, graph "
                         f"{graph.num_docs} documents")
    weights = document_weights(graph.labels, graph.label_names, config.class_weight,
                               sample_weight, graph.is_train, targets)
    if weights is None:
        return None
    for name, docs, why in (("training", train, "there is nothing to learn from"),
                            ("validation", val, "early stopping has nothing to watch")):
        if not weights[docs].any():
            raise UserError(f"every {name} document weighs zero (its sample_weight times its "
                            f"class weight): {why}; give some of them a weight above zero")
    return weights


def fitted_result(config: TrainConfig, history: list[dict[str, float]], best_epoch: int,
                  train_seconds: float, test: dict[str, Any] | None, val: dict[str, Any],
                  model: torch.nn.Module, probabilities: np.ndarray,
                  threshold: float | None = None, device: str = "cpu") -> TrainResult:
    """The :class:`TrainResult` of a finished fit (full batch or mini-batch alike)."""
    val["loss"] = history[best_epoch - 1]["val_loss"]
    return TrainResult(
        config=config, test=test, val=val, best_epoch=best_epoch, epochs_run=len(history),
        seconds_per_epoch=statistics.median(h["seconds"] for h in history),
        train_seconds=train_seconds, peak_rss_mib=peak_rss_mib(), history=history, model=model,
        probabilities=probabilities, threshold=threshold, lam=lambda_value(model),
        gin_eps=gin_eps_values(model), device=device,
    )


def lambda_parameters(model: torch.nn.Module) -> list[torch.nn.Parameter]:
    return [p for name, p in model.named_parameters() if name.endswith("lam")]


def lambda_value(model: torch.nn.Module) -> float | None:
    """The trade-off lambda of a text model's GFB layer (``None`` for the other models)."""
    lams = lambda_parameters(model)
    return float(lams[0].detach()) if len(lams) == 1 else None


def gin_eps_values(model: torch.nn.Module) -> list[float] | None:
    """GIN's ``eps`` per layer of a Text GIN (``None`` for the other models)."""
    eps = [float(m.eps.detach()) for m in model.modules() if isinstance(m, WeightedGINConv)]
    return eps or None


"""One full-batch training run of an entity classifier (the supplement's protocol).

Adam (lr 0.01) for a fixed number of epochs (50) on the labelled training nodes with
cross-entropy; the model after the last epoch is evaluated (no early stopping, as in R-GCN).
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor

from gfbgcn.core.device import device_name, resolve_device
from gfbgcn.core.metrics import classification_metrics
from gfbgcn.core.runinfo import current_peak_rss_mib, reset_peak_rss, seed_everything
from gfbgcn.entity.data import EntityData
from gfbgcn.entity.model import EntityConfig, build_entity_net
from gfbgcn.nn.models import EntityNet


def _fused_ok() -> bool:
    """Fused Adam (one pass over each parameter; same update rule) where this torch has it."""
    try:
        torch.optim.Adam([torch.nn.Parameter(torch.zeros(1))], fused=True)
    except (RuntimeError, TypeError, ValueError):
        return False
    return True


def train_once(
    data: EntityData,
    config: EntityConfig,
    seed: int,
    fit_idx: Tensor,
    fit_y: Tensor,
    eval_sets: Mapping[str, tuple[Tensor, Tensor]],
    device: str | torch.device | None = "cpu",
) -> dict[str, Any]:
    """Train from seed ``seed`` on ``fit_idx``/``fit_y`` ([n], [n]) and evaluate ``eval_sets``.

    Graph, indices, labels and model live on ``device`` (see :mod:`gfbgcn.core.device`); the
    weights are drawn on the CPU first, so a seed gives the same initial weights everywhere.

    Returns a JSON-able record: per-set metrics (accuracy, macro F1, confusion matrix,
    cross-entropy ``loss``), the
    final training loss, seconds per epoch (forward + backward + step), peak RSS (MiB) and the
    learned ``lambda`` per layer for GFB-R-GCN.
    """
    reset_ok = reset_peak_rss()
    device = resolve_device(device)
    seed_everything(seed)
    model = build_entity_net(data.num_nodes, data.num_relations, data.num_classes, config)
    model = model.to(device)
    graph = (data.edge_index.to(device), data.edge_type.to(device))
    losses, epoch_seconds = _fit(model, graph, data.num_nodes, fit_idx.to(device),
                                 fit_y.to(device), config)
    metrics = _evaluate(model, graph, eval_sets, data.num_classes, device)
    return {
        "seed": seed,
        "config": config.to_dict(),
        "metrics": metrics,
        "final_train_loss": losses[-1],
        "epochs_run": len(losses),
        "sec_per_epoch": sum(epoch_seconds) / len(epoch_seconds),
        "peak_rss_mib": current_peak_rss_mib(),
        "peak_rss_is_per_run": reset_ok,
        "lambdas": model.lambdas(),
        "num_parameters": sum(p.numel() for p in model.parameters()),
        "torch_threads": torch.get_num_threads(),
        "device": device_name(device),
    }


def _fit(model: EntityNet, graph: tuple[Tensor, Tensor], num_nodes: int, fit_idx: Tensor,
         fit_y: Tensor, config: EntityConfig) -> tuple[list[float], list[float]]:
    """Full-batch Adam for ``config.epochs`` epochs (stops early on a non-finite loss);
    ``(training loss, seconds)`` per epoch."""
    edge_index, edge_type = graph
    optimizer = torch.optim.Adam(
        model.parameters(), lr=config.lr, weight_decay=config.weight_decay, fused=_fused_ok()
    )
    losses: list[float] = []
    epoch_seconds: list[float] = []
    # computed once: recomputing them each epoch would wait for the device (data-dependent sizes)
    fit = model.target_edges(edge_index, edge_type, fit_idx, num_nodes)
    for _ in range(config.epochs):
        start = time.perf_counter()
        model.train()
        optimizer.zero_grad()
        logits = model(edge_index, edge_type, fit)  # [n_fit, C]
        loss = F.cross_entropy(logits, fit_y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())  # the epoch's one wait for the device (clock included)
        epoch_seconds.append(time.perf_counter() - start)
        if not math.isfinite(losses[-1]):
            break
    return losses, epoch_seconds


def _evaluate(model: torch.nn.Module, graph: tuple[Tensor, Tensor],
              eval_sets: Mapping[str, tuple[Tensor, Tensor]], num_classes: int,
              device: torch.device) -> dict[str, dict[str, Any]]:
    """Metrics and cross-entropy ``loss`` of every evaluation set, in eval mode."""
    edge_index, edge_type = graph
    model.eval()
    metrics = {}
    with torch.no_grad():
        for split, (idx, y) in eval_sets.items():
            idx, y = idx.to(device), y.to(device)
            logits = model(edge_index, edge_type, idx)  # [n_split, C]
            pred = logits.argmax(dim=-1)
            metrics[split] = classification_metrics(y.cpu().numpy(), pred.cpu().numpy(),
                                                    num_classes)
            metrics[split]["loss"] = float(F.cross_entropy(logits, y))
    return metrics

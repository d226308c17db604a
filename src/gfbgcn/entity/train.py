"""One full-batch training run of an entity classifier (the supplement's protocol).

Adam (lr 0.01) for a fixed number of epochs (50) on the labelled training nodes with
cross-entropy; the model after the last epoch is evaluated (no early stopping, as in R-GCN).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor

from gfbgcn.core.metrics import classification_metrics
from gfbgcn.core.runinfo import current_peak_rss_mib, reset_peak_rss, seed_everything
from gfbgcn.entity.data import EntityData
from gfbgcn.entity.model import EntityConfig, build_entity_net


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
) -> dict[str, Any]:
    """Train from seed ``seed`` on ``fit_idx``/``fit_y`` ([n], [n]) and evaluate ``eval_sets``.

    Returns a JSON-able record: per-set metrics (accuracy, macro F1, confusion matrix,
    cross-entropy ``loss``), the
    final training loss, seconds per epoch (forward + backward + step), peak RSS (MiB) and the
    learned ``lambda`` per layer for GFB-R-GCN.
    """
    reset_ok = reset_peak_rss()
    seed_everything(seed)
    model = build_entity_net(data.num_nodes, data.num_relations, data.num_classes, config)
    optimizer = torch.optim.Adam(
        model.parameters(), lr=config.lr, weight_decay=config.weight_decay, fused=_fused_ok()
    )
    losses: list[float] = []
    epoch_seconds: list[float] = []
    for _ in range(config.epochs):
        start = time.perf_counter()
        model.train()
        optimizer.zero_grad()
        logits = model(data.edge_index, data.edge_type, fit_idx)  # [n_fit, C]
        loss = F.cross_entropy(logits, fit_y)
        loss.backward()
        optimizer.step()
        epoch_seconds.append(time.perf_counter() - start)
        losses.append(float(loss.detach()))
        if not torch.isfinite(loss):
            break
    model.eval()
    metrics = {}
    with torch.no_grad():
        for split, (idx, y) in eval_sets.items():
            logits = model(data.edge_index, data.edge_type, idx)  # [n_split, C]
            pred = logits.argmax(dim=-1)
            metrics[split] = classification_metrics(y.numpy(), pred.numpy(), data.num_classes)
            metrics[split]["loss"] = float(F.cross_entropy(logits, y))
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
    }

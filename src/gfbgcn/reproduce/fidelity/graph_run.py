"""Graph rows of the fidelity table: ``train_one`` on a fold, with a configuration's
:class:`~gfbgcn.reproduce.fidelity.options.ExperimentOptions` through the trainer's hooks."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from typing import Any

import torch

from gfbgcn.core.runinfo import provenance
from gfbgcn.graph_classification.batching import GraphBatcher
from gfbgcn.graph_classification.data import load_graph_dataset
from gfbgcn.graph_classification.model import build_classifier
from gfbgcn.graph_classification.train import (
    GraphTrainConfig,
    GraphTrainHooks,
    make_splits,
    train_one,
)
from gfbgcn.nn.models import GraphClassifier
from gfbgcn.reproduce.fidelity.experiment import Row
from gfbgcn.reproduce.fidelity.options import (
    ExperimentOptions,
    lambda_param_groups,
    options_of,
)


class FidelityGraphHooks(GraphTrainHooks):
    """The graph options through :func:`train_one`'s hooks: GFB convolution options and the
    readout in the model, the ``lambda`` parameter group in Adam, gradient clipping before
    each step, a step decay of the learning rates after each epoch."""

    def __init__(self, options: ExperimentOptions) -> None:
        self.options = options

    def build_model(self, model_name: str, num_features: int, hidden: int, layers: int,
                    num_classes: int, dropout: float) -> GraphClassifier:
        return build_classifier(model_name, num_features, hidden, layers, num_classes, dropout,
                                conv_options=self.options.conv, readout=self.options.readout)

    def optimizer(self, model: torch.nn.Module, cfg: GraphTrainConfig) -> torch.optim.Optimizer:
        o = self.options
        if o.lambda_lr is None and o.lambda_weight_decay is None:
            return super().optimizer(model, cfg)
        return torch.optim.Adam(lambda_param_groups(model, cfg.lr, cfg.weight_decay, o),
                                lr=cfg.lr, weight_decay=cfg.weight_decay)

    def before_step(self, model: torch.nn.Module) -> None:
        if self.options.clip_norm is not None:
            torch.nn.utils.clip_grad_norm_(model.parameters(), self.options.clip_norm)

    def end_epoch(self, optimizer: torch.optim.Optimizer, epoch: int) -> None:
        step = self.options.lr_decay_step
        if step and epoch % step == 0:
            for group in optimizer.param_groups:
                group["lr"] *= self.options.lr_decay_factor


def graph_runner(row: Row, data_dir: str | None, device: Any) -> Callable[[Any], dict]:
    """``run(task) -> record`` for a graph row (tasks:
    :class:`~gfbgcn.reproduce.fidelity.run.GraphTask`); the data set is loaded once (before
    forking)."""
    ds = load_graph_dataset(row.dataset, data_dir)
    batcher = GraphBatcher(ds.graphs)
    configs = {c.name: c for c in row.configs}
    splits: dict[int, list[Any]] = {}

    def run(t: Any) -> dict[str, Any]:
        c = configs[t.config].config
        cfg = GraphTrainConfig(**c.get("train", {}))
        options = options_of(c, "graphs")
        if t.seed not in splits:
            splits[t.seed] = make_splits(ds.y.numpy(), row.folds, t.seed)
        rec = train_one(c["model"], ds.graphs, splits[t.seed][t.fold], ds.num_features,
                        ds.num_classes, t.hidden, t.layers, cfg, t.seed + t.fold,
                        batcher=batcher, device=device, hooks=FidelityGraphHooks(options))
        return {**rec, "config": c, "train_config": asdict(cfg),
                "options": options.record("graphs"), **provenance()}

    return run


__all__ = ["FidelityGraphHooks", "graph_runner"]

"""Text rows of the fidelity table: ``train_text`` with a configuration's overrides, and its
:class:`~gfbgcn.reproduce.fidelity.options.ExperimentOptions` through the trainer's hooks."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import torch

from gfbgcn.core.device import resolve_device
from gfbgcn.nn.sparse import to_device
from gfbgcn.reproduce.fidelity.experiment import Row
from gfbgcn.reproduce.fidelity.options import (
    ExperimentOptions,
    lambda_param_groups,
    options_of,
)
from gfbgcn.reproduce.fidelity.split_dropout import UndroppedSecondOrder
from gfbgcn.text.corpus.benchmarks import load_benchmark
from gfbgcn.text.graph.adjacency import normalized_adjacency
from gfbgcn.text.graph.text_graph import build_text_graph
from gfbgcn.text.train.config import TrainConfig
from gfbgcn.text.train.hooks import TrainHooks
from gfbgcn.text.train.run import train_text
from gfbgcn.text.train.setup import RunSetup


def text_config(config: dict[str, Any], seed: int) -> TrainConfig:
    """The text :class:`TrainConfig` of a configuration (``{"model", "train": overrides}``)."""
    return TrainConfig(model=config["model"], seed=seed, **config.get("train", {}))


def trace_test_accuracy(s: RunSetup) -> dict[str, float]:
    """The test accuracy of the weights validated in this epoch.  For the ``trace_test``
    configurations' *test-oracle* bound (the best any choice of epoch could reach); nothing is
    chosen on it.  Evaluation mode and no gradient, so the run's weights, gradients and random
    stream are untouched."""
    was_training = s.model.training
    s.model.eval()
    with torch.no_grad():
        pred = s.model(s.adj)[s.test_idx].argmax(1)
        acc = float((pred == s.targets[s.test_idx]).float().mean())
    s.model.train(was_training)
    return {"test_acc": acc}


def set_warmup_lr(optimizer: torch.optim.Optimizer, epoch: int, warmup: int) -> None:
    """Linear warm-up: every group's lr is its ``initial_lr`` times ``min(1, epoch / warmup)``."""
    for group in optimizer.param_groups:
        group.setdefault("initial_lr", group["lr"])
        group["lr"] = group["initial_lr"] * min(1.0, epoch / warmup)


class FidelityTextHooks(TrainHooks):
    """The text options through the full-batch trainer's hooks: at set-up, the undropped
    second-order term (a wrapped model) and the ``lambda`` parameter group (a new Adam, before
    any step, over the same parameters); before each step, the test trace, then clipping,
    then warm-up."""

    def __init__(self, options: ExperimentOptions, config: TrainConfig) -> None:
        self.options = options
        self.lr, self.weight_decay = config.lr, config.weight_decay

    def setup(self, setup: RunSetup) -> None:
        o = self.options
        if not o.second_order_dropout:
            setup.model = UndroppedSecondOrder(setup.model)
        groups = o.lambda_lr is not None or o.lambda_weight_decay is not None
        if (groups or o.warmup_epochs) and type(setup.optimizer) is not torch.optim.Adam:
            raise ValueError("lambda_lr, lambda_weight_decay and warmup_epochs need the "
                             "optimizer 'adam'")
        if groups:
            setup.optimizer = torch.optim.Adam(
                lambda_param_groups(setup.model, self.lr, self.weight_decay, o), lr=self.lr,
                weight_decay=self.weight_decay)

    def before_step(self, setup: RunSetup, epoch: int) -> dict[str, float]:
        o = self.options
        values = trace_test_accuracy(setup) if o.trace_test else {}
        if o.clip_norm is not None:
            torch.nn.utils.clip_grad_norm_(
                [p for p in setup.model.parameters() if p.grad is not None], o.clip_norm)
        if o.warmup_epochs and isinstance(setup.optimizer, torch.optim.Optimizer):
            set_warmup_lr(setup.optimizer, epoch, o.warmup_epochs)  # Adam, checked in setup
        return values


def text_runner(row: Row, data_dir: str | None, device: Any) -> Callable[[Any], dict]:
    """``run(task) -> record`` for a text row; the graph and ``Â`` are built once."""
    device = resolve_device(device)
    graph = build_text_graph(load_benchmark(row.dataset, data_dir))
    data = graph.to_data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        adj = to_device(normalized_adjacency(data.edge_index, data.edge_weight,
                                             data.num_nodes), device)
    configs = {c.name: c for c in row.configs}

    def run(task: Any) -> dict[str, Any]:
        c = configs[task.config].config
        options = options_of(c, "text")
        config = text_config(c, task.seed)
        # no options, no hooks: the library's run as it is (mini-batch training included)
        hooks = None if options == ExperimentOptions() else FidelityTextHooks(options, config)
        result = train_text(graph, config, progress=False, adj=adj, device=device,
                            hooks=hooks)
        lam_history = [h["lambda"] for h in result.history if "lambda" in h]
        traces = {"val_acc_history": [h["val_acc"] for h in result.history],
                  "test_acc_history": [h["test_acc"] for h in result.history]
                  } if options.trace_test else {}
        return {**result.record(), "spec": c, "options": options.record("text"),
                **({"lambda_history": lam_history} if lam_history else {}), **traces}

    return run


__all__ = ["FidelityTextHooks", "set_warmup_lr", "text_config", "text_runner",
           "trace_test_accuracy"]

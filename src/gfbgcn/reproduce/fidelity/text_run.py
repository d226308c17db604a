"""Text rows of the fidelity table: ``train_text`` with a configuration's overrides."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import torch

from gfbgcn.core.device import resolve_device
from gfbgcn.reproduce.fidelity.experiment import Row
from gfbgcn.nn.sparse import to_device
from gfbgcn.text.corpus.benchmarks import load_benchmark
from gfbgcn.text.graph.adjacency import normalized_adjacency
from gfbgcn.text.graph.text_graph import build_text_graph
from gfbgcn.text.train.config import TrainConfig
from gfbgcn.text.train.run import train_text
from gfbgcn.text.train.setup import RunSetup


def text_config(config: dict[str, Any], seed: int) -> TrainConfig:
    """The text :class:`TrainConfig` of a configuration (``{"model", "train": overrides}``)."""
    return TrainConfig(model=config["model"], seed=seed, **config.get("train", {}))


def trace_test_accuracy(s: RunSetup, epoch: int) -> dict[str, float]:
    """Epoch hook: the test accuracy of the weights validated in this epoch.  For the
    ``trace_test`` configurations' *test-oracle* bound (the best any choice of epoch could
    reach); nothing is chosen on it.  Evaluation mode and no gradient, so the run's weights,
    gradients and random stream are untouched."""
    was_training = s.model.training
    s.model.eval()
    with torch.no_grad():
        pred = s.model(s.adj)[s.test_idx].argmax(1)
        acc = float((pred == s.targets[s.test_idx]).float().mean())
    s.model.train(was_training)
    return {"test_acc": acc}


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
        trace = bool(c.get("trace_test"))
        result = train_text(graph, text_config(c, task.seed), progress=False, adj=adj,
                            device=device, epoch_hook=trace_test_accuracy if trace else None)
        lam_history = [h["lambda"] for h in result.history if "lambda" in h]
        traces = {"val_acc_history": [h["val_acc"] for h in result.history],
                  "test_acc_history": [h["test_acc"] for h in result.history]} if trace else {}
        return {**result.record(), "spec": c,
                **({"lambda_history": lam_history} if lam_history else {}), **traces}

    return run


__all__ = ["trace_test_accuracy", "text_config", "text_runner"]

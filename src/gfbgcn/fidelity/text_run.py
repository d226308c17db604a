"""Text rows of the fidelity table: ``train_text`` with a configuration's overrides."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from gfbgcn.core.device import resolve_device
from gfbgcn.fidelity.experiment import Row
from gfbgcn.nn.sparse import to_device
from gfbgcn.text.corpus.benchmarks import load_benchmark
from gfbgcn.text.graph.adjacency import normalized_adjacency
from gfbgcn.text.graph.text_graph import build_text_graph
from gfbgcn.text.train.config import TrainConfig
from gfbgcn.text.train.run import train_text


def text_config(config: dict[str, Any], seed: int) -> TrainConfig:
    """The text :class:`TrainConfig` of a configuration (``{"model", "train": overrides}``)."""
    return TrainConfig(model=config["model"], seed=seed, **config.get("train", {}))


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
        result = train_text(graph, text_config(c, task.seed), progress=False, adj=adj,
                            device=device)
        lam_history = [h["lambda"] for h in result.history if "lambda" in h]
        return {**result.record(), "spec": c,
                **({"lambda_history": lam_history} if lam_history else {})}

    return run


__all__ = ["text_config", "text_runner"]

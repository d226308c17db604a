"""Training and evaluation of transductive text classifiers on a Text GCN graph.

Protocol (paper, "Parameters"): Adam, lr 0.02, weight decay 0, dropout 0.5, hidden 200, at most
200 epochs, early stopping when the validation loss has not decreased for 10 epochs, with the
best-validation weights restored; 10 % of the training documents are the validation set, drawn
with the run's seed.

Each epoch runs one training forward/backward.  The validation loss of the current weights is
computed from the same layer-1 output (layer 1 has no dropout, so its training and evaluation
outputs coincide) through layer 2 in evaluation mode, *before* the optimiser step; the weights
saved for early stopping are exactly those that were validated.  This saves one sparse product
with the 200-column matrix per epoch compared with a separate evaluation pass.
"""

from __future__ import annotations

import csv
import io
import statistics
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from tqdm.auto import tqdm

from gfbgcn.io import atomic_write_json, atomic_write_text
from gfbgcn.nn.sparse import csr_rows
from gfbgcn.runinfo import machine_info, package_versions, peak_rss_mib, seed_everything
from gfbgcn.text.graph import TextGraph, normalized_adjacency
from gfbgcn.text.model import MODELS, TwoLayerTextGCN, build_text_model
from gfbgcn.train.early_stopping import EarlyStopping
from gfbgcn.train.metrics import classification_metrics


@dataclass
class TextTrainConfig:
    model: str = "gfb-max"
    seed: int = 0
    hidden: int = 200
    dropout: float = 0.5
    lr: float = 0.02
    weight_decay: float = 0.0
    epochs: int = 200
    patience: int = 10
    val_ratio: float = 0.1
    train_lambda: bool = True  # False freezes GFB's lambda at lambda_init (ablation)
    monitor: str = "loss"  # early stopping on validation "loss" (paper, Parameters) or "accuracy"
    layer_options: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.monitor not in ("loss", "accuracy"):
            raise ValueError(f"monitor must be 'loss' or 'accuracy', got {self.monitor!r}")
        if self.model not in MODELS:
            raise ValueError(f"unknown model {self.model!r}; choose one of {', '.join(MODELS)}")


@dataclass
class TrainResult:
    config: TextTrainConfig
    test: dict[str, Any]
    val: dict[str, Any]
    best_epoch: int
    epochs_run: int
    seconds_per_epoch: float
    train_seconds: float
    peak_rss_mib: float
    history: list[dict[str, float]]
    model: torch.nn.Module
    probabilities: np.ndarray  # [num_docs, C] softmax (multi-label: sigmoid) outputs
    threshold: float | None = None  # multi-label: decision threshold chosen on validation
    lam: float | None = None  # GFB models: lambda of the kept (best-validation) weights

    def record(self) -> dict[str, Any]:
        """JSON-serialisable summary (no weights)."""
        return {
            "config": asdict(self.config),
            "test": self.test,
            "val": self.val,
            "best_epoch": self.best_epoch,
            "epochs_run": self.epochs_run,
            "seconds_per_epoch": self.seconds_per_epoch,
            "train_seconds": self.train_seconds,
            "peak_rss_mib": self.peak_rss_mib,
            **({"threshold": self.threshold} if self.threshold is not None else {}),
            **({"lambda": self.lam} if self.lam is not None else {}),
            "versions": package_versions(),
            "machine": machine_info(),
        }


def _lambda_parameters(model: torch.nn.Module) -> list[torch.nn.Parameter]:
    return [p for name, p in model.named_parameters() if name.endswith("lam")]


def _lambda_value(model: torch.nn.Module) -> float | None:
    """The trade-off lambda of a text model's GFB layer (``None`` for the other models)."""
    lams = _lambda_parameters(model)
    return float(lams[0].detach()) if len(lams) == 1 else None


def train_text(
    graph: TextGraph,
    config: TextTrainConfig,
    *,
    progress: bool = True,
    adj: torch.Tensor | None = None,
    multilabel_targets: np.ndarray | None = None,
) -> TrainResult:
    """Train ``config.model`` on ``graph`` and evaluate it on the test documents.

    ``adj`` (the normalised adjacency) may be passed in to share it between runs.
    ``multilabel_targets`` (``[num_docs, L]`` 0/1, see :mod:`gfbgcn.text.multilabel`) switches
    to multi-label training: BCE-with-logits, sigmoid outputs, micro/macro F1 and subset
    accuracy at a threshold chosen on the validation documents.
    """
    generator = seed_everything(config.seed)
    del generator
    data = graph.to_data(config.val_ratio, config.seed)
    if adj is None:
        adj = normalized_adjacency(data.edge_index, data.edge_weight, data.num_nodes)
    multi = multilabel_targets is not None
    num_classes = multilabel_targets.shape[1] if multi else len(graph.label_names)
    if multi:
        y_multi = torch.as_tensor(np.asarray(multilabel_targets), dtype=torch.float32)
        if y_multi.shape[0] != graph.num_docs:
            raise ValueError(f"multilabel_targets has {y_multi.shape[0]} rows, "
                             f"graph {graph.num_docs} documents")
    options = dict(config.layer_options)
    model = build_text_model(
        config.model, data.num_nodes, num_classes, config.hidden, config.dropout, **options
    )
    if not config.train_lambda:
        for p in _lambda_parameters(model):
            p.requires_grad_(False)
    optimizer = torch.optim.Adam(
        [p for p in model.parameters() if p.requires_grad],
        lr=config.lr,
        weight_decay=config.weight_decay,
    )
    y = data.y
    train_idx = data.train_mask.nonzero().view(-1)
    val_idx = data.val_mask.nonzero().view(-1)
    row_adj = None
    if isinstance(model, TwoLayerTextGCN) and adj.layout == torch.sparse_csr:
        row_adj = (csr_rows(adj, train_idx), csr_rows(adj, val_idx))
    stopper = EarlyStopping(config.patience, mode="min" if config.monitor == "loss" else "max")
    history: list[dict[str, float]] = []
    epoch_seconds: list[float] = []
    start = time.perf_counter()
    bar = tqdm(range(1, config.epochs + 1), desc=config.model, disable=not progress, leave=False)
    for epoch in bar:
        t0 = time.perf_counter()
        model.train()
        optimizer.zero_grad(set_to_none=True)
        if row_adj is not None:
            # layer 2 only on the rows the losses read: the same values as slicing the full
            # output, at a fraction of the cost (document rows hold few entries of Â)
            h = model.hidden(adj)
            train_logits = model.head(h, row_adj[0])
            with torch.no_grad():
                model.eval()
                val_logits = model.head(h.detach(), row_adj[1])
                model.train()
        else:
            train_logits = model(adj)[train_idx]
            with torch.no_grad():
                model.eval()
                val_logits = model(adj)[val_idx]
                model.train()
        if multi:  # subset accuracy at threshold 0.5 for the progress record
            bce = F.binary_cross_entropy_with_logits
            y_train, y_val = y_multi[train_idx], y_multi[val_idx]
            loss = bce(train_logits, y_train)
            val_loss = float(bce(val_logits, y_val))
            val_acc = float(((val_logits > 0) == (y_val > 0)).all(1).float().mean())
            train_acc = float(((train_logits > 0) == (y_train > 0)).all(1).float().mean())
        else:
            y_train, y_val = y[train_idx], y[val_idx]
            loss = F.cross_entropy(train_logits, y_train)
            val_loss = float(F.cross_entropy(val_logits, y_val))
            val_acc = float((val_logits.argmax(1) == y_val).float().mean())
            train_acc = float((train_logits.argmax(1) == y_train).float().mean())
        lam = _lambda_value(model)  # the lambda of the weights validated in this epoch
        monitored = val_loss if config.monitor == "loss" else val_acc
        stop = stopper.step(monitored, model, epoch)  # validated weights = weights before the step
        loss.backward()
        optimizer.step()
        seconds = time.perf_counter() - t0
        epoch_seconds.append(seconds)
        history.append(
            {
                "epoch": epoch,
                "train_loss": float(loss.detach()),
                "train_acc": train_acc,
                "val_loss": val_loss,
                "val_acc": val_acc,
                "seconds": seconds,
                **({"lambda": lam} if lam is not None else {}),
            }
        )
        bar.set_postfix(loss=f"{history[-1]['train_loss']:.4f}", val_loss=f"{val_loss:.4f}", val_acc=f"{val_acc:.4f}")
        if stop:
            break
    bar.close()
    train_seconds = time.perf_counter() - start
    stopper.restore(model)
    model.eval()
    with torch.no_grad():
        logits = model(adj)
    docs = slice(0, graph.num_docs)
    test_idx = data.test_mask.nonzero().view(-1)
    threshold = None
    if multi:
        from gfbgcn.text.multilabel import choose_threshold, multilabel_metrics

        probs = torch.sigmoid(logits[docs]).numpy()
        y_np = y_multi.numpy()
        vi, ti = val_idx.numpy(), test_idx.numpy()
        threshold, _ = choose_threshold(y_np[vi], probs[vi]) if len(vi) else (0.5, 0.0)
        test = multilabel_metrics(y_np[ti], probs[ti] >= threshold)
        val = multilabel_metrics(y_np[vi], probs[vi] >= threshold)
        test["threshold"] = val["threshold"] = threshold
    else:
        probs = torch.softmax(logits[docs], dim=1).numpy()
        pred = logits.argmax(1)
        test = classification_metrics(y[test_idx].numpy(), pred[test_idx].numpy(), num_classes)
        val = classification_metrics(y[val_idx].numpy(), pred[val_idx].numpy(), num_classes)
    val["loss"] = history[stopper.best_epoch - 1]["val_loss"]
    return TrainResult(
        config=config,
        test=test,
        val=val,
        best_epoch=stopper.best_epoch,
        epochs_run=len(history),
        seconds_per_epoch=statistics.median(epoch_seconds),
        train_seconds=train_seconds,
        peak_rss_mib=peak_rss_mib(),
        history=history,
        model=model,
        probabilities=probs,
        threshold=threshold,
        lam=_lambda_value(model),
    )


def history_csv(history: list[dict[str, float]]) -> str:
    buf = io.StringIO()
    if history:
        writer = csv.DictWriter(buf, fieldnames=list(history[0]))
        writer.writeheader()
        writer.writerows(history)
    return buf.getvalue()


def write_run(out_dir: str | Path, result: TrainResult, graph: TextGraph,
              label_names: Sequence[str] | None = None) -> Path:
    """``config.json`` (seed, settings, versions), ``history.csv`` and ``metrics.json``.

    ``label_names``: the output columns' names when they differ from the graph's classes
    (multi-label training: one column per individual label, not per label combination).
    """
    out = Path(out_dir)
    record = result.record()
    atomic_write_json(
        out / "config.json",
        {
            "train": record["config"],
            "graph": {"key": graph.key, **asdict(graph.config), "tokenizer": graph.tokenizer},
            "dataset": graph.corpus_name,
            "versions": record["versions"],
            "machine": record["machine"],
        },
    )
    atomic_write_text(out / "history.csv", history_csv(result.history))
    metrics = {k: record[k] for k in ("test", "val", "best_epoch", "epochs_run",
                                      "seconds_per_epoch", "train_seconds", "peak_rss_mib",
                                      "lambda") if k in record}
    metrics["label_names"] = list(graph.label_names if label_names is None else label_names)
    atomic_write_json(out / "metrics.json", metrics)
    return out

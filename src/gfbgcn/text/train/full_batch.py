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

from gfbgcn.core.atomic import atomic_directory
from gfbgcn.core.device import device_name, resolve_device
from gfbgcn.core.early_stopping import EarlyStopping
from gfbgcn.core.io import atomic_write_json, atomic_write_text
from gfbgcn.core.metrics import classification_metrics
from gfbgcn.core.runinfo import (
    machine_info,
    package_versions,
    peak_rss_mib,
    seed_everything,
)
from gfbgcn.nn.models import TwoLayerTextGCN
from gfbgcn.nn.sparse import csr_rows, to_device
from gfbgcn.text.train.checks import check_converged, check_split, check_train_settings, json_safe
from gfbgcn.text.train.features import check_features_fit, node_features
from gfbgcn.text.graph.text_graph import TextGraph, normalized_adjacency
from gfbgcn.text.train.models import MODELS, build_text_model


@dataclass
class TrainConfig:
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
    batch_size: int = 0  # > 0: mini-batch training on sampled subgraphs (text/train/minibatch.py)
    fanout: int = 32  # mini-batch: sampled layer-1 neighbours per node (text/train/sampler.py)
    features: str = "onehot"  # input: "onehot" (paper) or "wordllama" (text/train/features.py)
    # Departures from the paper's protocol for the fidelity experiments (gfbgcn.fidelity),
    # full-batch only; the defaults change nothing:
    lambda_lr: float | None = None  # Adam lr of GFB's lambda (None: lr)
    lambda_weight_decay: float | None = None  # its weight decay (None: weight_decay)
    clip_norm: float | None = None  # clip the gradient's global l2 norm before each step
    warmup_epochs: int = 0  # lr_e = lr * min(1, e / warmup_epochs) for epoch e = 1, 2, ...

    def __post_init__(self) -> None:
        if self.batch_size < 0 or self.fanout < 1:
            raise ValueError(f"batch_size must be >= 0 and fanout >= 1, got {self.batch_size}, "
                             f"{self.fanout}")
        if self.monitor not in ("loss", "accuracy"):
            raise ValueError(f"monitor must be 'loss' or 'accuracy', got {self.monitor!r}")
        if self.model not in MODELS:
            raise ValueError(f"unknown model {self.model!r}; choose one of {', '.join(MODELS)}")
        if self.batch_size and (self.lambda_lr is not None or self.clip_norm is not None
                                or self.lambda_weight_decay is not None or self.warmup_epochs):
            raise ValueError("lambda_lr, lambda_weight_decay, clip_norm and warmup_epochs "
                             "apply to full-batch training (batch_size 0) only")
        if self.warmup_epochs < 0:
            raise ValueError(f"warmup_epochs must be >= 0, got {self.warmup_epochs}")
        check_train_settings(self)
        check_features_fit(self)


@dataclass
class TrainResult:
    config: TrainConfig
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
    device: str = "cpu"  # where it trained, as device_name() writes it

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
            "device": self.device,
            "versions": package_versions(),
            "machine": machine_info(),
        }


def _lambda_parameters(model: torch.nn.Module) -> list[torch.nn.Parameter]:
    return [p for name, p in model.named_parameters() if name.endswith("lam")]


def _lambda_value(model: torch.nn.Module) -> float | None:
    """The trade-off lambda of a text model's GFB layer (``None`` for the other models)."""
    lams = _lambda_parameters(model)
    return float(lams[0].detach()) if len(lams) == 1 else None


@dataclass
class _Setup:
    """Everything one training run works on (built by :func:`_prepare`)."""

    model: torch.nn.Module
    optimizer: torch.optim.Optimizer
    adj: torch.Tensor
    targets: torch.Tensor  # [num_nodes] class ids, or [num_docs, L] 0/1 (multi-label)
    multi: bool
    num_classes: int
    train_idx: torch.Tensor
    val_idx: torch.Tensor
    test_idx: torch.Tensor
    row_adj: tuple[torch.Tensor, torch.Tensor] | None  # rows of Â for train / val documents
    device: torch.device


def _prepare(graph: TextGraph, config: TrainConfig, adj: torch.Tensor | None,
             multilabel_targets: np.ndarray | None, device: torch.device) -> _Setup:
    """Model, optimiser, ``Â``, targets and document indices, all on ``device``.

    The weights are drawn on the CPU and then moved, so a seed gives the same initial weights
    on every device."""
    seed_everything(config.seed)
    data = graph.to_data(config.val_ratio, config.seed)
    if adj is None:
        adj = normalized_adjacency(data.edge_index, data.edge_weight, data.num_nodes)
    adj = to_device(adj, device)  # no copy when the caller shares one already there
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
                             config.dropout, features=node_features(graph, config.features),
                             **dict(config.layer_options)).to(device)
    if not config.train_lambda:
        for p in _lambda_parameters(model):
            p.requires_grad_(False)
    optimizer = make_optimizer(model, config)
    train_idx = data.train_mask.nonzero().view(-1)
    val_idx = data.val_mask.nonzero().view(-1)
    check_split(graph.labels, graph.label_names, train_idx.numpy(), val_idx.numpy(),
                config.val_ratio, multi)
    train_idx, val_idx = train_idx.to(device), val_idx.to(device)
    row_adj = None
    if isinstance(model, TwoLayerTextGCN) and adj.layout == torch.sparse_csr:
        row_adj = (csr_rows(adj, train_idx), csr_rows(adj, val_idx))
    return _Setup(model, optimizer, adj, targets, multi, num_classes, train_idx, val_idx,
                  data.test_mask.nonzero().view(-1).to(device), row_adj, device)


def _logits(s: _Setup) -> tuple[torch.Tensor, torch.Tensor]:
    """Training logits (with graph) and validation logits (without, eval mode) of one epoch."""
    model = s.model
    if s.row_adj is not None:
        # layer 2 only on the rows the losses read: the same values as slicing the full
        # output, at a fraction of the cost (document rows hold few entries of Â)
        h = model.hidden(s.adj)
        train_logits = model.head(h, s.row_adj[0])
        with torch.no_grad():
            model.eval()
            val_logits = model.head(h.detach(), s.row_adj[1])
            model.train()
    else:
        train_logits = model(s.adj)[s.train_idx]
        with torch.no_grad():
            model.eval()
            val_logits = model(s.adj)[s.val_idx]
            model.train()
    return train_logits, val_logits


def _losses(s: _Setup, train_logits: torch.Tensor, val_logits: torch.Tensor
            ) -> tuple[torch.Tensor, list[torch.Tensor]]:
    """``(training loss, [validation loss, validation accuracy, training accuracy])``, all
    tensors on the run's device (read together once per epoch, see :func:`_epoch_values`);
    for multi-label, subset accuracy at threshold 0.5 (for the progress record)."""
    y_train, y_val = s.targets[s.train_idx], s.targets[s.val_idx]
    if s.multi:
        bce = F.binary_cross_entropy_with_logits
        loss = bce(train_logits, y_train)
        val_loss = bce(val_logits, y_val)
        val_acc = ((val_logits > 0) == (y_val > 0)).all(1).float().mean()
        train_acc = ((train_logits > 0) == (y_train > 0)).all(1).float().mean()
    else:
        loss = F.cross_entropy(train_logits, y_train)
        val_loss = F.cross_entropy(val_logits, y_val)
        val_acc = (val_logits.argmax(1) == y_val).float().mean()
        train_acc = (train_logits.argmax(1) == y_train).float().mean()
    return loss, [val_loss, val_acc, train_acc]


def _epoch_values(loss: torch.Tensor, stats: list[torch.Tensor], model: torch.nn.Module
                  ) -> tuple[float, float, float, float, float | None]:
    """``(train loss, val loss, val acc, train acc, lambda)`` as Python floats, copied to the
    host in one transfer: the epoch's only wait for the device (early stopping needs the
    validation loss).  Widening float32 to float64 is exact, so the values equal ``float(t)``
    of each tensor."""
    lams = _lambda_parameters(model)
    parts = [loss.detach(), *stats] + ([lams[0].detach()] if len(lams) == 1 else [])
    values = torch.stack([p.reshape(()).to(torch.float64) for p in parts]).tolist()
    return (*values[:4], values[4] if len(values) > 4 else None)


def make_optimizer(model: torch.nn.Module, config: TrainConfig) -> torch.optim.Optimizer:
    """Adam over the trainable parameters; with ``lambda_lr`` / ``lambda_weight_decay`` GFB's
    ``lambda`` forms a second group with those settings (otherwise one group, as always)."""
    params = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    if config.lambda_lr is None and config.lambda_weight_decay is None:
        return torch.optim.Adam([p for _, p in params], lr=config.lr,
                                weight_decay=config.weight_decay)
    lams = [p for n, p in params if n.endswith("lam")]
    rest = [p for n, p in params if not n.endswith("lam")]
    groups: list[dict[str, Any]] = [{"params": rest}]
    if lams:
        groups.append({
            "params": lams,
            "lr": config.lr if config.lambda_lr is None else config.lambda_lr,
            "weight_decay": (config.weight_decay if config.lambda_weight_decay is None
                             else config.lambda_weight_decay)})
    return torch.optim.Adam(groups, lr=config.lr, weight_decay=config.weight_decay)


def _set_warmup_lr(optimizer: torch.optim.Optimizer, epoch: int, warmup: int) -> None:
    """Linear warm-up: every group's lr is its ``initial_lr`` times ``min(1, epoch / warmup)``."""
    for group in optimizer.param_groups:
        group.setdefault("initial_lr", group["lr"])
        group["lr"] = group["initial_lr"] * min(1.0, epoch / warmup)


def _fit(s: _Setup, config: TrainConfig, progress: bool
         ) -> tuple[list[dict[str, float]], EarlyStopping]:
    """The training loop with early stopping; the best validated weights are restored."""
    stopper = EarlyStopping(config.patience, mode="min" if config.monitor == "loss" else "max")
    history: list[dict[str, float]] = []
    bar = tqdm(range(1, config.epochs + 1), desc=config.model, disable=not progress, leave=False)
    for epoch in bar:
        t0 = time.perf_counter()
        s.model.train()
        s.optimizer.zero_grad(set_to_none=True)
        loss, stats = _losses(s, *_logits(s))
        loss.backward()  # queued before the host waits for the values below
        # lambda: that of the weights validated in this epoch (read before the step)
        train_loss, val_loss, val_acc, train_acc, lam = _epoch_values(loss, stats, s.model)
        monitored = val_loss if config.monitor == "loss" else val_acc
        stop = stopper.step(monitored, s.model, epoch)  # validated = weights before the step
        if config.clip_norm is not None:
            torch.nn.utils.clip_grad_norm_(
                [p for p in s.model.parameters() if p.grad is not None], config.clip_norm)
        if config.warmup_epochs:
            _set_warmup_lr(s.optimizer, epoch, config.warmup_epochs)
        s.optimizer.step()
        history.append({
            "epoch": epoch, "train_loss": train_loss, "train_acc": train_acc,
            "val_loss": val_loss, "val_acc": val_acc, "seconds": time.perf_counter() - t0,
            **({"lambda": lam} if lam is not None else {}),
        })
        bar.set_postfix(loss=f"{history[-1]['train_loss']:.4f}", val_loss=f"{val_loss:.4f}",
                        val_acc=f"{val_acc:.4f}")
        if stop:
            break
    bar.close()
    stopper.restore(s.model)
    return history, stopper


def _evaluate(s: _Setup, num_docs: int) -> tuple[dict, dict, np.ndarray, float | None]:
    """``(test metrics, validation metrics, document probabilities, threshold)``."""
    s.model.eval()
    with torch.no_grad():
        logits = s.model(s.adj)
    docs = slice(0, num_docs)
    vi, ti = s.val_idx.cpu().numpy(), s.test_idx.cpu().numpy()
    if s.multi:
        from gfbgcn.text.corpus.labels import choose_threshold, multilabel_metrics

        probs = torch.sigmoid(logits[docs]).cpu().numpy()
        y_np = s.targets.cpu().numpy()
        threshold, _ = choose_threshold(y_np[vi], probs[vi]) if len(vi) else (0.5, 0.0)
        test = multilabel_metrics(y_np[ti], probs[ti] >= threshold)
        val = multilabel_metrics(y_np[vi], probs[vi] >= threshold)
        test["threshold"] = val["threshold"] = threshold
        return test, val, probs, threshold
    probs = torch.softmax(logits[docs], dim=1).cpu().numpy()
    pred, y = logits.argmax(1).cpu().numpy(), s.targets.cpu().numpy()
    test = classification_metrics(y[ti], pred[ti], s.num_classes)
    val = classification_metrics(y[vi], pred[vi], s.num_classes)
    return test, val, probs, None


def train_text(
    graph: TextGraph,
    config: TrainConfig,
    *,
    progress: bool = True,
    adj: torch.Tensor | None = None,
    multilabel_targets: np.ndarray | None = None,
    device: str | torch.device | None = None,
) -> TrainResult:
    """Train ``config.model`` on ``graph`` and evaluate it on the test documents.

    ``device``: ``auto`` (default: the first CUDA GPU if torch sees one, else the CPU),
    ``cpu``, ``cuda`` or ``cuda:N`` (see :mod:`gfbgcn.core.device`); the returned model stays
    there.  ``adj`` (the normalised adjacency) may be passed in to share it between runs
    (passing it already on ``device`` saves a copy per run).
    ``multilabel_targets`` (``[num_docs, L]`` 0/1, see :mod:`gfbgcn.text.corpus.labels`) switches
    to multi-label training: BCE-with-logits, sigmoid outputs, micro/macro F1 and subset
    accuracy at a threshold chosen on the validation documents.
    """
    device = resolve_device(device)
    if config.batch_size:
        if multilabel_targets is not None:
            raise ValueError("mini-batch training (batch_size > 0) is single-label only")
        if device.type != "cpu":  # its sampler and DDP set-up are written and tested for the CPU
            raise ValueError(f"mini-batch training (--batch-size) runs on the CPU in this "
                             f"version, not on {device}; use --device cpu")
        from gfbgcn.text.train.minibatch import train_minibatch

        return train_minibatch(graph, config, progress=progress, adj=adj)
    setup = _prepare(graph, config, adj, multilabel_targets, device)
    start = time.perf_counter()
    history, stopper = _fit(setup, config, progress)
    check_converged(stopper.best_epoch, history, config.lr)
    train_seconds = time.perf_counter() - start
    test, val, probs, threshold = _evaluate(setup, graph.num_docs)
    return fitted_result(config, history, stopper.best_epoch, train_seconds, test, val,
                         setup.model, probs, threshold, device_name(device))


def fitted_result(config: TrainConfig, history: list[dict[str, float]], best_epoch: int,
                  train_seconds: float, test: dict[str, Any], val: dict[str, Any],
                  model: torch.nn.Module, probabilities: np.ndarray,
                  threshold: float | None = None, device: str = "cpu") -> TrainResult:
    """The :class:`TrainResult` of a finished fit (full batch or mini-batch alike)."""
    val["loss"] = history[best_epoch - 1]["val_loss"]
    return TrainResult(
        config=config, test=test, val=val, best_epoch=best_epoch, epochs_run=len(history),
        seconds_per_epoch=statistics.median(h["seconds"] for h in history),
        train_seconds=train_seconds, peak_rss_mib=peak_rss_mib(), history=history, model=model,
        probabilities=probabilities, threshold=threshold, lam=_lambda_value(model),
        device=device,
    )


def history_csv(history: list[dict[str, float]]) -> str:
    buf = io.StringIO()
    if history:
        writer = csv.DictWriter(buf, fieldnames=list(history[0]))
        writer.writeheader()
        writer.writerows(history)
    return buf.getvalue()


def write_run(out_dir: str | Path, result: TrainResult, graph: TextGraph,
              label_names: Sequence[str] | None = None,
              extra_metrics: dict[str, Any] | None = None,
              extra_files: dict[str, str] | None = None) -> Path:
    """``config.json`` (seed, settings, versions), ``history.csv`` and ``metrics.json``.

    ``label_names``: the output columns' names when they differ from the graph's classes
    (multi-label training: one column per individual label, not per label combination).
    The directory is written as a whole (:mod:`gfbgcn.core.atomic`): all three files or none,
    and an earlier run there stays intact until the new one is complete.
    ``extra_metrics`` are merged into ``metrics.json``; ``extra_files`` (name -> text, e.g.
    ``auto.csv``) are written into the same directory.
    """
    with atomic_directory(out_dir, "run", "--out") as staging:
        _write_run_files(staging, result, graph, label_names, extra_metrics)
        for name, text in (extra_files or {}).items():
            atomic_write_text(staging / name, text)
    return Path(out_dir)


def _write_run_files(out: Path, result: TrainResult, graph: TextGraph,
                     label_names: Sequence[str] | None,
                     extra_metrics: dict[str, Any] | None = None) -> Path:
    record = json_safe(result.record())  # strict JSON: no NaN
    atomic_write_json(
        out / "config.json",
        {
            "train": record["config"],
            "graph": {"key": graph.key, **asdict(graph.config), "tokenizer": graph.tokenizer},
            "dataset": graph.corpus_name,
            "device": record["device"],
            "versions": record["versions"],
            "machine": record["machine"],
        },
    )
    atomic_write_text(out / "history.csv", history_csv(result.history))
    metrics = {k: record[k] for k in ("test", "val", "best_epoch", "epochs_run",
                                      "seconds_per_epoch", "train_seconds", "peak_rss_mib",
                                      "lambda", "device") if k in record}
    metrics["label_names"] = list(graph.label_names if label_names is None else label_names)
    metrics.update(extra_metrics or {})  # e.g. the baseline beside an own-corpus result
    atomic_write_json(out / "metrics.json", metrics)
    return out

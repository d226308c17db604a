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

import time
from collections.abc import Callable

import numpy as np
import torch

from gfbgcn.core.device import device_name
from gfbgcn.core.early_stopping import EarlyStopping
from gfbgcn.core.metrics import classification_metrics, test_metrics
from gfbgcn.core.progress import progress_bar
from gfbgcn.nn.losses import binary_cross_entropy, cross_entropy
from gfbgcn.nn.models import TwoLayerTextGCN
from gfbgcn.text.corpus.labels import choose_threshold, multilabel_metrics
from gfbgcn.text.graph.text_graph import TextGraph
from gfbgcn.text.train.checks import (
    check_converged,
    check_finite_loss,
)
from gfbgcn.text.train.config import TrainConfig, TrainResult
from gfbgcn.text.train.features.inputs import DocInput
from gfbgcn.text.train.hooks import EpochCallback, TrainHooks
from gfbgcn.text.train.setup import (
    RunSetup,
    fitted_result,
    lambda_parameters,
    prepare_run,
)


def _logits(s: RunSetup) -> tuple[torch.Tensor, torch.Tensor]:
    """Training logits (with graph) and validation logits (without, eval mode) of one epoch."""
    model = s.model
    if s.row_adj is not None and isinstance(model, TwoLayerTextGCN):  # rows: two-layer only
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


def _losses(s: RunSetup, train_logits: torch.Tensor, val_logits: torch.Tensor
            ) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """``(training loss, {val_loss, val_acc, train_acc[, val_micro_f1, val_macro_f1]})``, all
    tensors on the run's device (read together once per epoch, see :func:`_epoch_values`);
    for multi-label, subset accuracy and the validation F1 scores at threshold 0.5 (the
    progress record; the final threshold is chosen on validation after training).  Both
    losses are weighted by the documents' weights where the run has them (:mod:`.losses`);
    the accuracies and F1 scores are not."""
    y_train, y_val = s.targets[s.train_idx], s.targets[s.val_idx]
    w_train, w_val = (None, None) if s.weights is None else \
        (s.weights[s.train_idx], s.weights[s.val_idx])
    if s.multi:
        loss = binary_cross_entropy(train_logits, y_train, w_train)
        stats = {"val_loss": binary_cross_entropy(val_logits, y_val, w_val),
                 "val_acc": ((val_logits > 0) == (y_val > 0)).all(1).float().mean(),
                 "train_acc": ((train_logits > 0) == (y_train > 0)).all(1).float().mean()}
        return loss, {**stats, **_f1_scores(val_logits > 0, y_val > 0)}
    loss = cross_entropy(train_logits, y_train, w_train)
    return loss, {"val_loss": cross_entropy(val_logits, y_val, w_val),
                  "val_acc": (val_logits.argmax(1) == y_val).float().mean(),
                  "train_acc": (train_logits.argmax(1) == y_train).float().mean()}


def _f1_scores(predicted: torch.Tensor, truth: torch.Tensor) -> dict[str, torch.Tensor]:
    """``val_micro_f1`` and ``val_macro_f1`` of 0/1 ``[N, L]`` matrices, on their device: the
    values of :func:`~gfbgcn.text.corpus.labels.multilabel_metrics` (a label with no true and
    no predicted document has F1 0; macro over every label)."""
    tp = (predicted & truth).sum(0, dtype=torch.float64)
    wrong = (predicted ^ truth).sum(0, dtype=torch.float64)  # false positives + negatives
    per_label = torch.where(2 * tp + wrong > 0, 2 * tp / (2 * tp + wrong).clamp(min=1),
                            torch.zeros_like(tp))
    denom = 2 * tp.sum() + wrong.sum()
    micro = torch.where(denom > 0, 2 * tp.sum() / denom.clamp(min=1), torch.zeros_like(denom))
    macro = per_label.mean() if per_label.numel() else torch.zeros_like(denom)
    return {"val_micro_f1": micro, "val_macro_f1": macro}


def _epoch_values(loss: torch.Tensor, stats: dict[str, torch.Tensor], model: torch.nn.Module
                  ) -> dict[str, float]:
    """``train_loss``, the ``stats`` and ``lambda`` (where the model learns one) as Python
    floats, copied to the host in one transfer: the epoch's only wait for the device (early
    stopping needs the validation loss).  Widening float32 to float64 is exact, so the values
    equal ``float(t)`` of each tensor."""
    lams = lambda_parameters(model)
    parts = {"train_loss": loss.detach(), **stats,
             **({"lambda": lams[0].detach()} if len(lams) == 1 else {})}
    values = torch.stack([p.reshape(()).to(torch.float64) for p in parts.values()]).tolist()
    return dict(zip(parts, values))


#: ``rule(history) -> stop`` called after each epoch with the history so far (validation values
#: only are meant to be read): True ends training there, as early stopping would, with the best
#: validated weights restored.  ``--auto`` uses it to stop candidates that trail (successive
#: halving's rule, :mod:`gfbgcn.text.search.auto`).
StopRule = Callable[[list[dict[str, float]]], bool]


def _fit(s: RunSetup, config: TrainConfig, progress: bool, hooks: TrainHooks,
         stop_rule: StopRule | None = None, on_epoch: EpochCallback | None = None
         ) -> tuple[list[dict[str, float]], EarlyStopping]:
    """The training loop with early stopping; the best validated weights are restored.
    ``on_epoch``: given each epoch's history entry as soon as it is recorded."""
    hooks.setup(s)
    stopper = EarlyStopping(config.patience, mode="min" if config.monitor == "loss" else "max")
    history: list[dict[str, float]] = []
    bar = progress_bar(range(1, config.epochs + 1), desc=config.model, show=progress,
                       leave=False)
    for epoch in bar:
        t0 = time.perf_counter()
        s.model.train()
        s.optimizer.zero_grad(set_to_none=True)
        loss, stats = _losses(s, *_logits(s))
        loss.backward()  # queued before the host waits for the values below
        # lambda: that of the weights validated in this epoch (read before the step)
        v = _epoch_values(loss, stats, s.model)
        check_finite_loss(epoch, v["train_loss"], v["val_loss"], config)
        monitored = v["val_loss"] if config.monitor == "loss" else v["val_acc"]
        stop = stopper.step(monitored, s.model, epoch)  # validated = weights before the step
        extra = hooks.before_step(s, epoch)
        s.optimizer.step()
        lam = v.pop("lambda", None)
        history.append({
            "epoch": epoch, "train_loss": v.pop("train_loss"), "train_acc": v.pop("train_acc"),
            "val_loss": v.pop("val_loss"), "val_acc": v.pop("val_acc"), **v,
            "seconds": time.perf_counter() - t0,
            **({"lambda": lam} if lam is not None else {}), **extra,
        })
        if on_epoch is not None:
            on_epoch(dict(history[-1]))  # a copy: the callback cannot change the record
        bar.set_postfix(loss=f"{history[-1]['train_loss']:.4f}",
                        val_loss=f"{history[-1]['val_loss']:.4f}",
                        val_acc=f"{history[-1]['val_acc']:.4f}")
        if stop or (stop_rule is not None and stop_rule(history)):
            break
    bar.close()
    stopper.restore(s.model)
    return history, stopper


def _evaluate(s: RunSetup, num_docs: int
              ) -> tuple[dict | None, dict, np.ndarray, float | None]:
    """``(test metrics, validation metrics, document probabilities, threshold)``; the test
    metrics are ``None`` without a labelled test document (nothing to score)."""
    s.model.eval()
    with torch.no_grad():
        logits = s.model(s.adj)
    docs = slice(0, num_docs)
    vi, ti = s.val_idx.cpu().numpy(), s.test_idx.cpu().numpy()
    if s.multi:
        probs = torch.sigmoid(logits[docs]).cpu().numpy()
        y_np = s.targets.cpu().numpy()
        threshold, _ = choose_threshold(y_np[vi], probs[vi]) if len(vi) else (0.5, 0.0)
        test = multilabel_metrics(y_np[ti], probs[ti] >= threshold) if len(ti) else None
        val = multilabel_metrics(y_np[vi], probs[vi] >= threshold)
        val["threshold"] = threshold
        if test is not None:
            test["threshold"] = threshold
        return test, val, probs, threshold
    probs = torch.softmax(logits[docs], dim=1).cpu().numpy()
    pred, y = logits.argmax(1).cpu().numpy(), s.targets.cpu().numpy()
    test = test_metrics(y[ti], pred[ti], s.num_classes)
    val = classification_metrics(y[vi], pred[vi], s.num_classes)
    return test, val, probs, None


def train_full_batch(graph: TextGraph, config: TrainConfig, *, progress: bool = True,
                     adj: torch.Tensor | None = None,
                     multilabel_targets: np.ndarray | None = None,
                     device: torch.device, hooks: TrainHooks | None = None,
                     stop_rule: StopRule | None = None,
                     doc_input: DocInput | None = None,
                     sample_weight: np.ndarray | None = None,
                     on_epoch: EpochCallback | None = None) -> TrainResult:
    """One full-batch run on ``device`` (see :func:`gfbgcn.text.train.run.train_text`;
    ``hooks``: :class:`~gfbgcn.text.train.hooks.TrainHooks`; ``stop_rule``: :data:`StopRule`;
    ``on_epoch``: :data:`~gfbgcn.text.train.hooks.EpochCallback`)."""
    setup = prepare_run(graph, config, adj, multilabel_targets, device, doc_input=doc_input,
                        sample_weight=sample_weight)
    start = time.perf_counter()
    history, stopper = _fit(setup, config, progress, hooks or TrainHooks(), stop_rule,
                            on_epoch)
    check_converged(stopper.best_epoch, history, config.lr)
    train_seconds = time.perf_counter() - start
    test, val, probs, threshold = _evaluate(setup, graph.num_docs)
    return fitted_result(config, history, stopper.best_epoch, train_seconds, test, val,
                         setup.model, probs, threshold, device_name(device))

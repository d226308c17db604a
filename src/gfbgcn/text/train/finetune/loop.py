"""The fine-tuning loop: epochs of steps, validation, early stopping, and the final pass.

An epoch runs the training documents once, in batches (shuffled with the run's seed); then
the validation and test documents, which no step embeds, are embedded again with the encoder
of the epoch (evaluation mode), so that every row of the bank is of this epoch's encoder (the
training rows from within it, BertGCN refreshes the bank every epoch too), and the validation
loss of the mixture is taken.  Early stopping on it works as in the graph models' training
(:class:`~gfbgcn.core.early_stopping.EarlyStopping`: patience, the best weights of the
encoder, the graph model and the head restored; they are kept on the CPU, so a large encoder
costs no device memory twice).  At the end the whole bank is embedded again by the best
encoder, and every document's probabilities come from it: the bank, the graph model's
features and the encoder that will embed new documents agree.

*The weight of the predictions is chosen on validation.*  Training minimises the loss of the
mixture at the given ``w`` (BertGCN's 0.7); at the end the two parts' probabilities are mixed
with the weight of lowest validation log-loss (:func:`gfbgcn.text.mixture.choose_weight`, the
rule of ``--auto``'s combinations).  Why: on R8, R52, Ohsumed and 20NG (3 seeds each, GPU,
``docs/results/finetune.md``) the weight so chosen was 0.15-0.7 and the mixture's test accuracy
rose over the trained ``w`` = 0.7 on all four: R52 89.6 to 95.7 %, Ohsumed 67.3 to 72.3 %, R8
97.4 to 97.8 %, 20NG 85.5 to 85.6 %; on R52 the graph part alone was 89.3 %, the head 95.4 %.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import nn
from tqdm.auto import tqdm

from gfbgcn.core.device import device_name, resolve_device
from gfbgcn.core.early_stopping import EarlyStopping
from gfbgcn.core.metrics import classification_metrics, mean_log_loss, test_metrics
from gfbgcn.core.runinfo import machine_info, package_versions, peak_rss_mib, torch_seeded
from gfbgcn.nn.models import FeatureTextGCN
from gfbgcn.text.encoder.embed import SentenceEncoder
from gfbgcn.text.graph.text_graph import TextGraph
from gfbgcn.text.mixture import choose_weight, mix
from gfbgcn.text.train.checks import check_converged, check_finite_loss
from gfbgcn.text.train.config import TrainConfig
from gfbgcn.text.train.features.encoder import DocEmbeddings
from gfbgcn.text.train.finetune.estimate import Clock, FinetuneEstimate, time_run
from gfbgcn.text.train.finetune.setup import (
    DEFAULT_BATCH_DOCS,
    DEFAULT_ENCODER_LR,
    DEFAULT_WEIGHT,
    FinetuneRun,
    prepare_finetune,
    shuffled_batches,
)
from gfbgcn.text.train.finetune.step import (
    evaluate_rows,
    finetune_step,
    refresh_bank,
    validate,
)
from gfbgcn.text.train.hooks import EpochCallback

__all__ = ["FinetuneResult", "train_finetune", "weights_digest"]

States = dict[str, dict[str, torch.Tensor]]
#: What early stopping is given to copy: it counts the epochs, the weights are kept here.
_NO_WEIGHTS = nn.Module()


@dataclass
class FinetuneResult:
    """A fine-tuning run: its settings, metrics, probabilities and trained parts.

    ``probabilities`` ``[num_docs, C]`` is the mixture ``w p_graph + (1 - w) p_head`` of
    ``graph_probabilities`` and ``head_probabilities`` with ``w`` = ``weight``, the weight of
    the predictions (chosen on validation after training, or ``train_weight``: see
    :func:`train_finetune`); ``train_weight`` the ``w`` of the training loss;
    ``embeddings`` ``[num_docs, dim]`` the bank at the end (every document by the best
    encoder); ``encoder`` the fine-tuned encoder (evaluation mode, frozen again; its
    identity's ``digest`` is that of its weights, :func:`weights_digest`, so no cache or saved
    model takes it for the pretrained one, and its budget the fine-tuning's ``max_length``,
    truncating); ``encoder_state`` its weights on the CPU; ``gcn`` the graph model, its
    features the bank's (source: a :class:`~gfbgcn.text.train.features.encoder.DocEmbeddings`
    embedding with ``encoder``); ``head`` the linear classifier on the embeddings.
    ``val["loss"]`` is the validation log-loss of ``probabilities`` (what a choice between
    candidates compares); ``history`` has each epoch's, from the bank of that epoch.
    ``val_idx`` ``[V]``: the validation documents' ids (rows of the probabilities)."""

    config: TrainConfig
    weight: float
    train_weight: float
    encoder_lr: float
    batch_docs: int
    max_length: int
    test: dict[str, Any] | None  # None: no labelled test document
    val: dict[str, Any]
    best_epoch: int
    epochs_run: int
    seconds_per_epoch: float
    train_seconds: float
    history: list[dict[str, float]]
    probabilities: np.ndarray
    graph_probabilities: np.ndarray
    head_probabilities: np.ndarray
    embeddings: np.ndarray
    encoder: SentenceEncoder
    encoder_state: dict[str, torch.Tensor]
    gcn: FeatureTextGCN
    head: nn.Linear
    estimate: FinetuneEstimate
    val_idx: np.ndarray
    device: str = "cpu"
    peak_rss_mib: float = 0.0

    def record(self) -> dict[str, Any]:
        """JSON-serialisable summary (no weights)."""
        return {
            "config": dataclasses.asdict(self.config),
            "finetune": {"weight": self.weight, "train_weight": self.train_weight,
                         "encoder_lr": self.encoder_lr,
                         "batch_docs": self.batch_docs, "max_length": self.max_length,
                         "encoder": self.encoder.identity.to_dict()},
            "test": self.test, "val": self.val, "best_epoch": self.best_epoch,
            "epochs_run": self.epochs_run, "seconds_per_epoch": self.seconds_per_epoch,
            "train_seconds": self.train_seconds, "peak_rss_mib": self.peak_rss_mib,
            "estimate": {"epoch_seconds": self.estimate.epoch_seconds,
                         "step_seconds": self.estimate.step_seconds,
                         "steps_per_epoch": self.estimate.steps_per_epoch},
            "device": self.device, "versions": package_versions(), "machine": machine_info(),
        }


def weights_digest(state: dict[str, torch.Tensor]) -> str:
    """sha256 over the names, dtypes, shapes and bytes of a state dict's tensors (names
    sorted): the fine-tuned encoder's ``digest``."""
    h = hashlib.sha256()
    for name in sorted(state):
        t = state[name].detach().cpu().contiguous()
        h.update(f"{name}|{t.dtype}|{list(t.shape)}\n".encode())
        h.update(t.reshape(-1).view(torch.uint8).numpy().data)
    return h.hexdigest()


def _cpu_states(run: FinetuneRun) -> States:
    return {name: {k: v.detach().to("cpu", copy=True) for k, v in module.state_dict().items()}
            for name, module in run.modules().items()}


def _epoch(run: FinetuneRun, train: np.ndarray, rng: np.random.Generator
           ) -> tuple[float, float]:
    """One pass over the training documents ``train``: ``(mean loss, accuracy)`` of its
    steps, read from the device once."""
    total = torch.zeros(2, dtype=torch.float64, device=run.device)
    for batch in shuffled_batches(train, run.batch_docs, rng):
        loss, correct = finetune_step(run, batch)
        total += torch.stack([loss.to(torch.float64), correct.to(torch.float64)])
    loss_sum, correct_sum = total.tolist()
    return loss_sum / len(train), correct_sum / len(train)


def _fit(run: FinetuneRun, config: TrainConfig, progress: bool,
         on_epoch: EpochCallback | None = None
         ) -> tuple[list[dict[str, float]], int, States | None]:
    """Epochs until early stopping: ``(history, best epoch, best weights on the CPU)``;
    ``on_epoch``: given each epoch's history entry as soon as it is recorded."""
    stopper = EarlyStopping(config.patience, mode="min" if config.monitor == "loss" else "max")
    rng = np.random.default_rng(config.seed)
    train = run.train_idx.cpu().numpy()
    history: list[dict[str, float]] = []
    best: States | None = None
    bar = tqdm(range(1, config.epochs + 1), desc="fine-tuning", disable=not progress,
               leave=False)
    for epoch in bar:
        start = time.perf_counter()
        train_loss, train_acc = _epoch(run, train, rng)
        if not math.isfinite(train_loss):  # the weights may be NaN: embed nothing with them
            check_finite_loss(epoch, train_loss, math.nan, config)
        refresh_bank(run, run.others)  # validation and test rows: this epoch's encoder
        val_loss, val_acc = validate(run)
        check_finite_loss(epoch, train_loss, val_loss, config)
        monitored = val_loss if config.monitor == "loss" else val_acc
        if stopper.improves(monitored):
            best = _cpu_states(run)
        stop = stopper.step(monitored, _NO_WEIGHTS, epoch)
        history.append({"epoch": epoch, "train_loss": train_loss, "train_acc": train_acc,
                        "val_loss": val_loss, "val_acc": val_acc,
                        "seconds": time.perf_counter() - start})
        if on_epoch is not None:
            on_epoch(dict(history[-1]))
        bar.set_postfix(loss=f"{train_loss:.4f}", val_loss=f"{val_loss:.4f}",
                        val_acc=f"{val_acc:.4f}")
        if stop:
            break
    bar.close()
    return history, stopper.best_epoch, best


def _finish_encoder(run: FinetuneRun, state: dict[str, torch.Tensor]) -> None:
    """The encoder as a frozen one again: evaluation mode, no gradients, its identity's
    digest that of its weights."""
    model = run.encoder.model
    model.eval()
    model.requires_grad_(False)
    run.encoder.identity = dataclasses.replace(run.encoder.identity,
                                               digest=weights_digest(state))


def _parts(run: FinetuneRun) -> tuple[np.ndarray, np.ndarray]:
    """``(graph part, head)`` probabilities ``[num_docs, C]`` from the bank."""
    g, h = evaluate_rows(run, torch.arange(run.num_docs, device=run.device))
    return g.softmax(dim=1).cpu().numpy(), h.softmax(dim=1).cpu().numpy()


def _prediction_weight(run: FinetuneRun, p_graph: np.ndarray, p_head: np.ndarray,
                       on_validation: bool) -> float:
    """The weight of lowest validation log-loss, or the training weight."""
    if not on_validation:
        return run.weight
    vi, y = run.val_idx.cpu().numpy(), run.targets.cpu().numpy()
    return choose_weight(p_graph[vi], p_head[vi], y[vi])[0]


def _metrics(run: FinetuneRun, probs: np.ndarray
             ) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    """``(test, validation)`` metrics of the mixture; validation with its log-loss; test
    ``None`` without a labelled test document."""
    y, pred = run.targets.cpu().numpy(), probs.argmax(axis=1)
    vi, ti = run.val_idx.cpu().numpy(), run.test_idx.cpu().numpy()
    test = test_metrics(y[ti], pred[ti], run.num_classes)
    val = classification_metrics(y[vi], pred[vi], run.num_classes)
    val["loss"] = mean_log_loss(y[vi], probs[vi])
    return test, val


def train_finetune(graph: TextGraph, texts: Sequence[str], encoder: SentenceEncoder,
                   config: TrainConfig, *, weight: float = DEFAULT_WEIGHT,
                   encoder_lr: float = DEFAULT_ENCODER_LR, batch_docs: int = DEFAULT_BATCH_DOCS,
                   max_length: int | None = None, device: str | torch.device = "cpu",
                   adj: torch.Tensor | None = None, log: Callable[[str], None] | None = None,
                   progress: bool = False, clock: Clock = time.perf_counter,
                   on_epoch: EpochCallback | None = None,
                   weight_on_validation: bool = True) -> FinetuneResult:
    """Fine-tune ``encoder`` jointly with a graph model on ``graph``, as BertGCN does (the
    model and the step: :mod:`gfbgcn.text.train.finetune.step`; the loop: this module).

    Args:
        graph: the corpus graph; ``texts`` its documents' texts, in its order.
        encoder: a loaded encoder (:func:`gfbgcn.text.encoder.load_encoder`); a copy of it is
            trained, the caller's is left as it was.
        config: the graph model (``model``, ``hidden``, ``dropout``), its learning rate (also
            the head's), ``weight_decay``, ``epochs``, ``patience``, ``val_ratio``, ``seed``.
        weight: the graph part's share ``w`` of the mixture in the training loss (0: the head
            alone, 1: the graph).
        encoder_lr: Adam's learning rate for the encoder.
        batch_docs: training documents per step.
        max_length: tokens per document, special tokens included: its first ones (default
            128); never more than the encoder's own budget.
        device: where to train; ``adj``: ``Â`` when the caller has it.
        log: given one line, the time estimate, before training starts.
        progress: progress bars over the epochs and the corpus's embedding.
        clock: the estimate's clock (tests give their own).
        on_epoch: called with each epoch's history entry
            (:data:`gfbgcn.text.train.hooks.EpochCallback`).
        weight_on_validation: mix the trained parts' predictions with the weight of lowest
            validation log-loss (module docstring); ``False``: with ``weight``.

    Deterministic on the CPU for a given ``config.seed``; the caller's random generators are
    left as they were (:func:`gfbgcn.core.runinfo.torch_seeded`).
    """
    dev = resolve_device(device)
    with torch_seeded(config.seed, dev):
        run = prepare_finetune(graph, texts, encoder, config, weight=weight,
                               encoder_lr=encoder_lr, batch_docs=batch_docs,
                               max_length=max_length, device=dev, adj=adj)
        estimate = time_run(run, config.epochs, seed=config.seed, clock=clock)
        if log is not None:
            log(estimate.line())
        start = time.perf_counter()
        refresh_bank(run, progress=progress)  # every document by the pretrained encoder
        history, best_epoch, best = _fit(run, config, progress, on_epoch)
        check_converged(best_epoch, history, config.lr)
        assert best is not None  # a best epoch has its weights
        for name, module in run.modules().items():
            module.load_state_dict(best[name])
        refresh_bank(run, progress=progress)  # every document by the best encoder
        train_seconds = time.perf_counter() - start
    return _result(run, config, best["encoder"], history, best_epoch, train_seconds, estimate,
                   encoder_lr, weight_on_validation)


def _result(run: FinetuneRun, config: TrainConfig, encoder_state: dict[str, torch.Tensor],
            history: list[dict[str, float]], best_epoch: int, train_seconds: float,
            estimate: FinetuneEstimate, encoder_lr: float, weight_on_validation: bool
            ) -> FinetuneResult:
    """The result of a finished run (the best weights in place, the bank refreshed)."""
    _finish_encoder(run, encoder_state)
    p_graph, p_head = _parts(run)
    weight = _prediction_weight(run, p_graph, p_head, weight_on_validation)
    probs = mix(p_graph, p_head, weight)
    test, val = _metrics(run, probs)
    with torch.no_grad():  # the graph model's own features: the bank's, word rows zero
        run.gcn.features[:run.num_docs] = run.bank * run.scale
    run.gcn.source = DocEmbeddings(run.encoder.identity.to_dict(), run.scale, "zeros",
                                   run.encoder.embed)
    return FinetuneResult(
        config=config, weight=weight, train_weight=run.weight, encoder_lr=encoder_lr,
        batch_docs=run.batch_docs,
        max_length=run.encoder.identity.max_length, test=test, val=val, best_epoch=best_epoch,
        epochs_run=len(history),
        seconds_per_epoch=statistics.median(h["seconds"] for h in history),
        train_seconds=train_seconds, history=history, probabilities=probs,
        graph_probabilities=p_graph, head_probabilities=p_head,
        embeddings=run.bank.cpu().numpy(), encoder=run.encoder, encoder_state=encoder_state,
        gcn=run.gcn, head=run.head, estimate=estimate, val_idx=run.val_idx.cpu().numpy(),
        device=device_name(run.device),
        peak_rss_mib=peak_rss_mib())

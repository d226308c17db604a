"""How long fine-tuning will take, from a few timed steps on the device, before it starts.

A few training steps (``TIMED_STEPS`` batches: the encoder forward and backward, the graph
model on the whole graph, the optimiser) and one inference batch of the bank's refresh are
timed on the run's device, then extrapolated: an epoch is its steps plus the documents
re-embedded after them (validation and test), and the corpus is embedded once before training
and once after it.  On a GPU one untimed step goes first (kernels load, memory is reserved).
The timed steps change nothing: the weights, the bank and Adam's state are put back after
them, and their dropout draws come from a generator of their own, so the run that follows is
the run that would have followed without them.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import math
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import torch

from gfbgcn.core.device import device_name, resolve_device
from gfbgcn.core.runinfo import torch_seeded
from gfbgcn.text.encoder.embed import SentenceEncoder
from gfbgcn.text.graph.text_graph import TextGraph
from gfbgcn.text.train.config import TrainConfig
from gfbgcn.text.train.finetune.setup import (
    DEFAULT_BATCH_DOCS,
    DEFAULT_ENCODER_LR,
    DEFAULT_WEIGHT,
    FinetuneRun,
    prepare_finetune,
    shuffled_batches,
)
from gfbgcn.text.train.finetune.step import finetune_step

__all__ = ["TIMED_STEPS", "FinetuneEstimate", "estimate_finetune_seconds", "time_run"]

#: Training steps timed for the estimate (their mean is the step's time).
TIMED_STEPS = 2
Clock = Callable[[], float]


def _duration(seconds: float) -> str:
    """``42 s``, ``14 min``, ``3.5 h``."""
    if seconds < 90:
        return f"{seconds:.2g} s" if seconds < 10 else f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


@dataclass(frozen=True)
class FinetuneEstimate:
    """A fine-tuning run's time, extrapolated from timed work (all times in seconds).

    Attributes:
        device: where it was timed (:func:`gfbgcn.core.device.device_name`).
        step_seconds: one training step of ``batch_docs`` documents (the mean of the timed).
        steps_per_epoch: steps an epoch takes (the training documents once).
        embed_seconds_per_doc: one document's share of an inference batch.
        refreshed_per_epoch: documents re-embedded after each epoch (validation and test).
        num_docs: the corpus (embedded before and after training).
        epochs: the most epochs the run may take.
        timed: the timings it was computed from (training steps, then the inference batch).
    """

    device: str
    step_seconds: float
    steps_per_epoch: int
    embed_seconds_per_doc: float
    refreshed_per_epoch: int
    num_docs: int
    epochs: int
    timed: tuple[float, ...] = ()

    @property
    def epoch_seconds(self) -> float:
        """An epoch: its steps and the refresh of the other documents' embeddings."""
        return (self.steps_per_epoch * self.step_seconds
                + self.refreshed_per_epoch * self.embed_seconds_per_doc)

    @property
    def bank_seconds(self) -> float:
        """One pass over the corpus (the bank filled before training, refreshed after)."""
        return self.num_docs * self.embed_seconds_per_doc

    @property
    def most_seconds(self) -> float:
        """The whole run if early stopping never stops it."""
        return self.epochs * self.epoch_seconds + 2 * self.bank_seconds

    def line(self) -> str:
        """One line for the user, before training starts."""
        return (f"fine-tuning on {self.device}: about {_duration(self.epoch_seconds)} an epoch "
                f"({self.steps_per_epoch:,} steps of {_duration(self.step_seconds)}), at most "
                f"{self.epochs} epochs (up to {_duration(self.most_seconds)}, the corpus "
                f"embedded in {_duration(self.bank_seconds)} before and after)")


def _sync(device: torch.device) -> None:
    """Wait for the device's queued work (CUDA runs asynchronously: a clock read right after
    a launch times the launch, not the work)."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)


@contextlib.contextmanager
def _undone(run: FinetuneRun) -> Iterator[None]:
    """Whatever the block does to the run's weights, bank and Adam state is put back."""
    saved = {name: {k: v.detach().clone() for k, v in module.state_dict().items()}
             for name, module in run.modules().items()}
    bank = run.bank.clone()
    optimizer = copy.deepcopy(run.optimizer.state_dict())
    try:
        yield
    finally:
        for name, module in run.modules().items():
            module.load_state_dict(saved[name])
        run.bank.copy_(bank)
        run.optimizer.load_state_dict(optimizer)
        run.optimizer.zero_grad(set_to_none=True)


def _timed(clock: Clock, device: torch.device, work: Callable[[], object]) -> float:
    start = clock()
    work()
    _sync(device)
    return clock() - start


def time_run(run: FinetuneRun, epochs: int, *, seed: int = 0, clock: Clock = time.perf_counter,
             steps: int = TIMED_STEPS) -> FinetuneEstimate:
    """Time ``steps`` training steps and one inference batch of ``run`` on its device (see
    the module docstring) and extrapolate to ``epochs``; the run is left as it was."""
    rng = np.random.default_rng(seed)
    train = run.train_idx.cpu().numpy()
    batches = shuffled_batches(train, run.batch_docs, rng)
    timed_batches = [batches[i % len(batches)] for i in range(steps)]
    sample = rng.permutation(run.num_docs)[:run.inference_batch]
    texts = [run.texts[i] for i in sample]

    def embed() -> object:
        run.encoder.model.eval()
        return run.encoder.embed(texts, batch_size=run.inference_batch)

    with _undone(run), torch_seeded(seed, run.device):
        if run.device.type == "cuda":
            finetune_step(run, timed_batches[0])  # warm-up, untimed
            _sync(run.device)
        step_times = [_timed(clock, run.device, functools.partial(finetune_step, run, b))
                      for b in timed_batches]
        embed_time = _timed(clock, run.device, embed)
    return FinetuneEstimate(
        device=device_name(run.device), step_seconds=statistics.fmean(step_times),
        steps_per_epoch=math.ceil(len(train) / run.batch_docs),
        embed_seconds_per_doc=embed_time / max(len(sample), 1),
        refreshed_per_epoch=int(run.others.numel()), num_docs=run.num_docs, epochs=epochs,
        timed=(*step_times, embed_time))


def estimate_finetune_seconds(graph: TextGraph, texts: Sequence[str], encoder: SentenceEncoder,
                              config: TrainConfig, *, weight: float = DEFAULT_WEIGHT,
                              encoder_lr: float = DEFAULT_ENCODER_LR,
                              batch_docs: int = DEFAULT_BATCH_DOCS,
                              max_length: int | None = None,
                              device: str | torch.device = "cpu",
                              adj: torch.Tensor | None = None, clock: Clock = time.perf_counter,
                              steps: int = TIMED_STEPS) -> FinetuneEstimate:
    """The time :func:`~gfbgcn.text.train.finetune.train_finetune` with the same arguments
    would take (its :attr:`FinetuneEstimate.epoch_seconds` an epoch, at most
    :attr:`~FinetuneEstimate.most_seconds`), from ``steps`` timed steps on ``device``.  The
    caller's encoder and random generators are left as they were."""
    dev = resolve_device(device)
    with torch_seeded(config.seed, dev):
        run = prepare_finetune(graph, texts, encoder, config, weight=weight,
                               encoder_lr=encoder_lr, batch_docs=batch_docs,
                               max_length=max_length, device=dev, adj=adj)
        return time_run(run, config.epochs, seed=config.seed, clock=clock, steps=steps)

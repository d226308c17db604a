"""Seams of the training loops for a caller that varies the protocol or watches it, without
the trainer knowing what for: :class:`TrainHooks` (the full-batch loop,
:func:`gfbgcn.text.train.full_batch.train_full_batch`) and :data:`EpochCallback` (every loop:
full batch, mini-batch, fine-tuning)."""

from __future__ import annotations

from collections.abc import Callable

from gfbgcn.text.train.setup import RunSetup

#: ``on_epoch(entry)``: told of each epoch as soon as it is recorded, with a copy of its
#: history entry (``epoch``, ``train_loss``, ``val_loss``, ``val_acc``, ... as in
#: ``history.csv``), after early stopping's step and before the next epoch.  It only watches
#: (TensorBoard logging, :mod:`gfbgcn.text.estimator.tensorboard`): it is called outside the
#: run's computation, so what it does changes no result; under torchrun every process calls
#: its own.
EpochCallback = Callable[[dict[str, float]], None]


class TrainHooks:
    """Called by the full-batch loop at two points of a run; the base class changes nothing.

    A subclass overrides what it needs.  Anything it does that the protocol does not (replace
    the model or optimiser, touch the gradients or the learning rates) is its own departure:
    with the base hooks a run is the plain one, bit for bit.
    """

    def setup(self, setup: RunSetup) -> None:
        """Once, after :func:`~gfbgcn.text.train.setup.prepare_run` and before the first
        epoch.  May replace ``setup.model`` (e.g. wrap it) or ``setup.optimizer``; the weights
        have been drawn already, so doing so consumes no random numbers of the run."""

    def before_step(self, setup: RunSetup, epoch: int) -> dict[str, float]:
        """Each epoch (1, 2, ...), after the validation of the current weights and early
        stopping's step, with the training loss's gradients in place, before the optimiser
        step.  May change the gradients or the optimiser's learning rates; a read-only hook
        must leave the model's mode and the random streams as it found them.  The values
        returned join the epoch's history entry."""
        return {}


__all__ = ["EpochCallback", "TrainHooks"]

"""Seams of the full-batch training loop (:func:`gfbgcn.text.train.full_batch.train_full_batch`)
for a caller that varies the protocol or watches it, without the trainer knowing what for."""

from __future__ import annotations

from gfbgcn.text.train.setup import RunSetup


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


__all__ = ["TrainHooks"]

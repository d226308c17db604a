"""Early stopping on a validation quantity, keeping the best weights."""

from __future__ import annotations

import copy
import math

import torch


class EarlyStopping:
    """Stop when ``value`` has not improved for ``patience`` consecutive epochs.

    ``mode="min"`` for losses, ``"max"`` for accuracies.  :meth:`step` stores a copy of the
    model's state dict whenever the value improves; :meth:`restore` loads it back.
    """

    def __init__(self, patience: int = 10, mode: str = "min", min_delta: float = 0.0) -> None:
        if mode not in ("min", "max"):
            raise ValueError(f"mode must be 'min' or 'max', got {mode!r}")
        if patience < 1:
            raise ValueError(f"patience must be >= 1, got {patience}")
        self.patience = patience
        self.mode = mode
        self.min_delta = min_delta
        self.best = math.inf if mode == "min" else -math.inf
        self.best_epoch = -1
        self.bad_epochs = 0
        self._state: dict[str, torch.Tensor] | None = None

    def improves(self, value: float) -> bool:
        """Whether ``value`` would be a new best (what :meth:`step` stores the weights for);
        changes nothing.  A caller holding the weights elsewhere (several runs trained as one
        model) copies them into the model only then."""
        if self.mode == "min":
            return value < self.best - self.min_delta
        return value > self.best + self.min_delta

    def step(self, value: float, model: torch.nn.Module, epoch: int) -> bool:
        """Record ``value`` for ``epoch``; return True when training should stop."""
        if self.improves(value):
            self.best = value
            self.best_epoch = epoch
            self.bad_epochs = 0
            self._state = copy.deepcopy(model.state_dict())
        else:
            self.bad_epochs += 1
        return self.bad_epochs >= self.patience

    def restore(self, model: torch.nn.Module) -> None:
        """Load the best weights seen so far into ``model`` (no-op before the first step)."""
        if self._state is not None:
            model.load_state_dict(self._state)

"""The fidelity experiments' departures from the library's training protocol, in one object.

The library's trainers (:func:`gfbgcn.text.train.run.train_text`,
:func:`gfbgcn.graph_classification.train.train_one`) know none of these: they offer generic
hooks, and :mod:`gfbgcn.reproduce.fidelity.text_run` / :mod:`~gfbgcn.reproduce.fidelity.graph_run`
implement the options through them.  A configuration of ``hypotheses.json`` names its options
under ``"options"``; the defaults change nothing.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import torch


@dataclass(frozen=True)
class ExperimentOptions:
    """Experiment-only knobs of one fidelity configuration (defaults: the protocol itself).

    Attributes:
        lambda_lr: Adam learning rate of the GFB ``lambda`` parameters (``None``: the run's lr).
        lambda_weight_decay: their weight decay (``None``: the run's).
        clip_norm: clip the gradient's global l2 norm to this value before every step.
        warmup_epochs: (text) ``lr_e = lr * min(1, e / warmup_epochs)`` for epoch ``e = 1, 2, ...``.
        second_order_dropout: (text) ``False``: the GFB second layer's second-order term sees
            the hidden features without dropout
            (:class:`~gfbgcn.reproduce.fidelity.split_dropout.UndroppedSecondOrder`).
        trace_test: (text) record the test accuracy of every epoch's validated weights, for
            the report's test-oracle bound (never a result).
        conv: (graphs) keyword options of every GFB convolution (``summarize``,
            ``second_norm``, ``lambda_init``, ``eps``; see
            :func:`gfbgcn.graph_classification.model.make_conv`).
        readout: (graphs) global pooling, ``"mean"`` (the graph table's) or ``"sum"``.
        lr_decay_factor, lr_decay_step: (graphs) multiply every learning rate by the factor
            after each ``lr_decay_step`` epochs (PyG's ``benchmark/kernel``: 0.5 every 50);
            ``0``: never.
    """

    lambda_lr: float | None = None
    lambda_weight_decay: float | None = None
    clip_norm: float | None = None
    warmup_epochs: int = 0
    second_order_dropout: bool = True
    trace_test: bool = False
    conv: dict[str, Any] = field(default_factory=dict)
    readout: str = "mean"
    lr_decay_factor: float = 1.0
    lr_decay_step: int = 0

    def __post_init__(self) -> None:
        for name in ("lambda_lr", "clip_norm"):
            value = getattr(self, name)
            if value is not None and not (math.isfinite(value) and value > 0):
                raise ValueError(f"{name} must be a positive number or None, got {value!r}")
        wd = self.lambda_weight_decay
        if wd is not None and not (math.isfinite(wd) and wd >= 0):
            raise ValueError(f"lambda_weight_decay must be >= 0 or None, got {wd!r}")
        if self.warmup_epochs < 0 or self.lr_decay_step < 0:
            raise ValueError("warmup_epochs and lr_decay_step must be >= 0, got "
                             f"{self.warmup_epochs} and {self.lr_decay_step}")
        if not (math.isfinite(self.lr_decay_factor) and self.lr_decay_factor > 0):
            raise ValueError(f"lr_decay_factor must be positive, got {self.lr_decay_factor!r}")
        if self.readout not in ("mean", "sum"):
            raise ValueError(f"readout must be 'mean' or 'sum', got {self.readout!r}")

    def record(self, task: str) -> dict[str, Any]:
        """The options that apply to ``task``, for a run record."""
        return {name: getattr(self, name) for name in TASK_OPTIONS[task]}


#: The options each task's runner implements (entity rows take none).
TASK_OPTIONS: dict[str, tuple[str, ...]] = {
    "text": ("lambda_lr", "lambda_weight_decay", "clip_norm", "warmup_epochs",
             "second_order_dropout", "trace_test"),
    "graphs": ("conv", "readout", "lambda_lr", "lambda_weight_decay", "clip_norm",
               "lr_decay_factor", "lr_decay_step"),
    "entity": (),
}


def options_of(config: Mapping[str, Any], task: str) -> ExperimentOptions:
    """The :class:`ExperimentOptions` of a configuration (its ``"options"``); an option that
    ``task``'s runner does not implement is a ``ValueError`` naming it."""
    given = dict(config.get("options") or {})
    foreign = sorted(set(given) - set(TASK_OPTIONS[task]))
    if foreign:
        raise ValueError(f"options {foreign} do not apply to {task} configurations "
                         f"(they take {list(TASK_OPTIONS[task])})")
    return ExperimentOptions(**given)


def lambda_param_groups(model: torch.nn.Module, lr: float, weight_decay: float,
                        options: ExperimentOptions) -> list[dict[str, Any]]:
    """Adam's parameter groups with GFB's ``lambda`` (parameters named ``*lam``) apart, at
    ``options.lambda_lr`` / ``lambda_weight_decay``; one group when neither is set or the
    model has no ``lambda``.  Frozen parameters are left out."""
    params = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    lams = [p for n, p in params if n.endswith("lam")]
    if not lams or (options.lambda_lr is None and options.lambda_weight_decay is None):
        return [{"params": [p for _, p in params]}]
    return [
        {"params": [p for n, p in params if not n.endswith("lam")]},
        {"params": lams,
         "lr": lr if options.lambda_lr is None else options.lambda_lr,
         "weight_decay": (weight_decay if options.lambda_weight_decay is None
                          else options.lambda_weight_decay)},
    ]


__all__ = ["TASK_OPTIONS", "ExperimentOptions", "lambda_param_groups", "options_of"]

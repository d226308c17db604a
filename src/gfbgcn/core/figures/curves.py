"""A training run's curves drawn to PNG: its losses and validation metrics per epoch.

The history is a list of per-epoch entries as the trainers record them (``history.csv``):
``epoch``, ``train_loss``, ``val_loss`` and ``val_acc`` (``train_acc`` beside it), a
multi-label run's ``val_micro_f1`` and ``val_macro_f1`` (drawn instead of the accuracies:
subset accuracy is near zero for many labels), and a GFB model's ``lambda`` (a third panel).
Missing keys are left out of the figure, so any trainer's history draws.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from gfbgcn.core.figures.canvas import new_figure, save_png

#: The losses are drawn on a log scale when their largest value is at least this many times
#: their smallest: the first epochs' loss (about ln C) would otherwise flatten the later ones,
#: where early stopping decides, into a line along the axis.
LOG_SCALE_RATIO = 10.0

#: The metric panel: ``(key, legend)`` of a single-label and of a multi-label run.
SINGLE_LABEL_METRICS = (("val_acc", "validation accuracy"), ("train_acc", "training accuracy"))
MULTI_LABEL_METRICS = (("val_micro_f1", "validation micro F1"),
                       ("val_macro_f1", "validation macro F1"))


def column(history: Sequence[Mapping[str, Any]], key: str) -> np.ndarray | None:
    """``[epochs]`` the float values of ``key``, or ``None`` where an entry lacks it."""
    if not history or any(key not in entry or entry[key] in ("", None) for entry in history):
        return None
    return np.asarray([float(entry[key]) for entry in history], dtype=np.float64)


def wants_log_scale(*series: np.ndarray) -> bool:
    """Whether curves holding ``series`` read better on a log scale (:data:`LOG_SCALE_RATIO`);
    never with a value at or below zero (or none finite)."""
    values = np.concatenate([s[np.isfinite(s)] for s in series]) if series else np.empty(0)
    return bool(len(values) and values.min() > 0
                and values.max() >= LOG_SCALE_RATIO * values.min())


def metric_keys(history: Sequence[Mapping[str, Any]]) -> tuple[tuple[str, str], ...]:
    """What the metric panel draws: the F1 scores of a multi-label history, else the
    accuracies."""
    multi = column(history, "val_micro_f1") is not None
    return MULTI_LABEL_METRICS if multi else SINGLE_LABEL_METRICS


def draw_curves(history: Sequence[Mapping[str, Any]], path: str | Path, *,
                best_epoch: int | None = None, title: str = "",
                purpose: str = "a training-curves figure") -> Path:
    """Draw ``history`` (per-epoch entries, see the module docstring) to the PNG ``path``:
    the training and validation losses (log scale where :func:`wants_log_scale`), the
    validation metrics and, where recorded, lambda, each against the epoch, with
    ``best_epoch`` (the weights kept) marked by a dashed line and points on the validation
    curves.  ``purpose`` names what needs matplotlib in the error raised without it."""
    if not history:
        raise ValueError("an empty history has no curves")
    epochs = column(history, "epoch")
    x = np.arange(1, len(history) + 1, dtype=np.float64) if epochs is None else epochs
    panels = ["loss", "metric"] + (["lambda"] if column(history, "lambda") is not None else [])
    fig = new_figure(5.0 * len(panels), 4.0, purpose)
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    marker = "o" if len(x) <= 20 else None  # a few epochs: show where each value lies
    best = _best_index(x, best_epoch)
    losses = [("train_loss", "training loss"), ("val_loss", "validation loss")]
    drawn = _plot(axes[0], x, history, losses, marker, best)
    if wants_log_scale(*drawn):
        axes[0].set_yscale("log")
    axes[0].set_ylabel("loss")
    _plot(axes[1], x, history, metric_keys(history), marker, best)
    axes[1].set_ylabel("score")
    if len(panels) == 3:
        _plot(axes[2], x, history, (("lambda", "lambda"),), marker, best)
        axes[2].set_ylabel("lambda (GFB)")
    for ax in axes:
        ax.set_xlabel("epoch")
        if best is not None:
            ax.axvline(x[best], color="grey", linestyle="--", linewidth=1,
                       label=f"best epoch {x[best]:g}")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    if title:
        fig.suptitle(title)
    return save_png(fig, path)


def _best_index(x: np.ndarray, best_epoch: int | None) -> int | None:
    """The row of ``best_epoch`` among the epochs ``x`` (``None``: not given or not there)."""
    if best_epoch is None:
        return None
    rows = np.flatnonzero(x == best_epoch)
    return int(rows[0]) if len(rows) else None


def _plot(ax: Any, x: np.ndarray, history: Sequence[Mapping[str, Any]],
          keys: Sequence[tuple[str, str]], marker: str | None, best: int | None
          ) -> list[np.ndarray]:
    """The curves of ``keys`` present in ``history`` on ``ax`` (a validation curve's value at
    the best epoch as a point); the values drawn."""
    drawn = []
    for key, legend in keys:
        y = column(history, key)
        if y is None:
            continue
        line = ax.plot(x, y, marker=marker, markersize=3, label=legend)[0]
        if best is not None and key.startswith("val_"):
            ax.plot(x[best], y[best], marker="*", markersize=11, color=line.get_color())
        drawn.append(y)
    return drawn

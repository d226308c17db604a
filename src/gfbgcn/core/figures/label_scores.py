"""The F1 score of each label drawn to PNG: a multi-label classifier's stand-in for a confusion
matrix (a document may hold several labels, so no single cell holds its error)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from gfbgcn.core.figures.canvas import new_figure, save_png
from gfbgcn.core.figures.confusion import label_font_size


def draw_label_scores(names: Sequence[str], f1: Sequence[float], support: Sequence[int],
                      path: str | Path, *, title: str = "",
                      purpose: str = "a per-label F1 figure") -> Path:
    """Horizontal bars of each label's ``f1`` ``[L]`` in the order of ``names`` (top to
    bottom), each with its ``support`` (the documents holding the label) beside it, to the
    PNG ``path``."""
    scores = np.asarray(f1, dtype=np.float64)
    if len(scores) != len(names) or len(support) != len(names):
        raise ValueError(f"{len(names)} names, {len(scores)} scores, {len(support)} supports")
    fig = new_figure(7.0, min(2.0 + 0.3 * len(names), 30.0), purpose)
    ax = fig.subplots()
    rows = np.arange(len(names))
    ax.barh(rows, scores, color="tab:blue")
    ax.set_yticks(rows, labels=list(names), fontsize=label_font_size(len(names)))
    ax.invert_yaxis()  # the first label on top, as in a table
    ax.set_xlim(0.0, 1.12)  # room for the supports right of a full bar
    ax.set_xlabel("F1 on the test documents")
    if len(names) <= 60:  # beyond, the numbers would overlap
        for row, (score, n) in enumerate(zip(scores, support)):
            ax.text(score + 0.01, row, f"{score:.2f} (n={int(n)})", va="center", fontsize=7)
    ax.grid(axis="x", alpha=0.3)
    if title:
        ax.set_title(title)
    return save_png(fig, path)

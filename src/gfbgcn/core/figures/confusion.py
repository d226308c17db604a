"""A confusion matrix drawn to PNG with matplotlib (the ``figures`` extra).

Each cell is coloured by its share of its row (the true label's documents), so a large class
does not wash out the others, and holds its count where the matrix is small enough to read;
past that, the label names shrink with their number.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from gfbgcn.core.figures.canvas import new_figure, save_png

#: Counts are written into the cells up to this many columns (beyond, they would overlap).
ANNOTATED_MAX = 30


def figure_size(count: int) -> float:
    """Inches of a side of the matrix of ``count`` labels: 0.35 a label (room for a
    10-point name), 30 at most."""
    return min(4.0 + 0.35 * count, 30.0)


def label_font_size(count: int) -> float:
    """Points of ``count`` tick labels along an axis: 10 up to 40 labels, then smaller, never
    under 4 (the axis itself is at most 30 inches long)."""
    return float(min(10.0, max(4.0, 400.0 / max(count, 1))))


def draw_confusion(counts: np.ndarray, rows: Sequence[str], columns: Sequence[str],
                   path: str | Path, *, title: str = "",
                   purpose: str = "a confusion matrix figure") -> Path:
    """Draw ``counts`` ``[len(rows), len(columns)]`` (rows: true labels, columns: predicted,
    each in the order given) to the PNG file ``path``; ``purpose`` names what needs matplotlib
    in the error raised when it is not installed (:func:`gfbgcn.core.extras.require`)."""
    counts = np.asarray(counts, dtype=np.int64)
    share = counts / np.maximum(counts.sum(axis=1, keepdims=True), 1)
    size = figure_size(max(len(rows), len(columns)))
    fig = new_figure(size + 1.5, size, purpose)
    ax = fig.subplots()
    image = ax.imshow(share, cmap="Blues", vmin=0.0, vmax=1.0, aspect="auto")
    fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04, label="share of the true label")
    ax.set_xticks(range(len(columns)), labels=list(columns), rotation=45, ha="right",
                  fontsize=label_font_size(len(columns)))
    ax.set_yticks(range(len(rows)), labels=list(rows), fontsize=label_font_size(len(rows)))
    ax.set_xlabel("predicted label")
    ax.set_ylabel("true label")
    if title:
        ax.set_title(title)
    if len(columns) <= ANNOTATED_MAX:
        for i, j in np.ndindex(*counts.shape):
            ax.text(j, i, str(counts[i, j]), ha="center", va="center", fontsize=8,
                    color="white" if share[i, j] > 0.5 else "black")
    return save_png(fig, path)

"""A confusion matrix drawn to PNG with matplotlib (the ``figures`` extra).

Each cell is coloured by its share of its row (the true label's documents), so a large class
does not wash out the others, and holds its count where the matrix is small enough to read.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from gfbgcn.core.extras import require

#: Counts are written into the cells up to this many columns (beyond, they would overlap).
ANNOTATED_MAX = 30


def draw_confusion(counts: np.ndarray, rows: Sequence[str], columns: Sequence[str],
                   path: str | Path, *, title: str = "",
                   purpose: str = "a confusion matrix figure") -> Path:
    """Draw ``counts`` ``[len(rows), len(columns)]`` (rows: true labels, columns: predicted)
    to the PNG file ``path``; ``purpose`` names what needs matplotlib in the error raised when
    it is not installed (:func:`gfbgcn.core.extras.require`)."""
    matplotlib = require("matplotlib", "figures", purpose)
    matplotlib.use("Agg")  # files only: no display needed, none opened
    import matplotlib.pyplot as plt

    counts = np.asarray(counts, dtype=np.int64)
    share = counts / np.maximum(counts.sum(axis=1, keepdims=True), 1)
    size = min(4.0 + 0.45 * max(len(rows), len(columns)), 30.0)
    fig, ax = plt.subplots(figsize=(size + 1.5, size))
    try:
        image = ax.imshow(share, cmap="Blues", vmin=0.0, vmax=1.0, aspect="auto")
        fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04, label="share of the true label")
        ax.set_xticks(range(len(columns)), labels=list(columns), rotation=45, ha="right")
        ax.set_yticks(range(len(rows)), labels=list(rows))
        ax.set_xlabel("predicted label")
        ax.set_ylabel("true label")
        if title:
            ax.set_title(title)
        if len(columns) <= ANNOTATED_MAX:
            for i in range(counts.shape[0]):
                for j in range(counts.shape[1]):
                    ax.text(j, i, str(counts[i, j]), ha="center", va="center", fontsize=8,
                            color="white" if share[i, j] > 0.5 else "black")
        fig.tight_layout()
        fig.savefig(path, dpi=100)
    finally:
        plt.close(fig)
    return Path(path)

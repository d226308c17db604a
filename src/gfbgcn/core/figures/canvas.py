"""A matplotlib figure made and written without pyplot.

pyplot keeps global state: a current figure and a backend, which ``matplotlib.use("Agg")``
would switch under a user's notebook.  A :class:`matplotlib.figure.Figure` made directly
draws with the Agg renderer when saved, touches neither and needs no closing.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from gfbgcn.core.extras import require
from gfbgcn.core.io import atomic_write

#: Resolution of every PNG (pixels per inch of the figure size).
DPI = 100


def new_figure(width: float, height: float, purpose: str) -> Any:
    """A blank ``width`` x ``height`` inch :class:`matplotlib.figure.Figure`; ``purpose``
    names what needs matplotlib in the one-line error raised when it is missing
    (:func:`gfbgcn.core.extras.require`)."""
    figure = require("matplotlib.figure", "figures", purpose)
    return figure.Figure(figsize=(width, height), layout="constrained")


def save_png(fig: Any, path: str | Path) -> Path:
    """Write ``fig`` to ``path`` as a PNG, atomically (a temporary sibling renamed into
    place: a reader never sees half an image)."""
    return atomic_write(path, lambda tmp: fig.savefig(tmp, format="png", dpi=DPI))


def can_draw() -> bool:
    """Whether matplotlib (the ``figures`` extra) is installed, so figures are drawn
    (imported, not just looked up: it is about to draw)."""
    try:
        importlib.import_module("matplotlib.figure")
    except ImportError:
        return False
    return True

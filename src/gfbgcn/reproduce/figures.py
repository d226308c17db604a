"""Fig. ``pools`` of the paper (left empty there): response surfaces of the pooling operators.

For two filter responses ``(p1, p2)`` in ``[0, 1]^2`` (section "Analysis", ``p_i`` read as
probabilities) the figure shows the response of channel 1:

* MeanVec  ``p1 * mean(p1, p2)``
* MaxVec   ``p1 * max(p1, p2)``
* UpperVec ``p1 * (1 - (1 - p1)(1 - p2))``
* Linear   ``p1`` (no pooling)

which illustrates Eq. ``ineq``: MeanVec <= MaxVec <= UpperVec <= Linear.  The three operators
are evaluated through :func:`gfbgcn.nn.genvec.genvec` (exact form, ``eps = 0``), not re-typed.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from gfbgcn.core.extras import require
from gfbgcn.core.io import atomic_write
from gfbgcn.nn.genvec import genvec

__all__ = ["FILE_NAME", "pooling_surfaces", "render_pooling_figure"]

FILE_NAME = "pooling.png"

# (panel title, GenVec summarizer or None for the linear case), in the paper's panel order.
PANELS: tuple[tuple[str, str | None], ...] = (
    ("MeanVec", "mean"),
    ("MaxVec", "max"),
    ("UpperVec", "upper"),
    ("Linear", None),
)


def pooling_surfaces(n: int = 101) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    """Grid ``p1, p2`` ([n, n] each, ``p1`` varies along columns) and each panel's response.

    Returns ``(p1, p2, {title: response [n, n]})`` with the channel-1 response of
    ``GenVec(p p^T)`` for ``p = (p1, p2)``.
    """
    axis = torch.linspace(0.0, 1.0, n, dtype=torch.float64)
    p2, p1 = torch.meshgrid(axis, axis, indexing="ij")
    h = torch.stack([p1.reshape(-1), p2.reshape(-1)], dim=-1)  # [n*n, 2] = (p1, p2) per point
    surfaces: dict[str, np.ndarray] = {}
    for title, name in PANELS:
        if name is None:
            resp = h[:, 0]
        else:
            resp = genvec(h, name, eps=0.0, exact=True)[:, 0]
        surfaces[title] = resp.reshape(n, n).numpy()
    return p1.numpy(), p2.numpy(), surfaces


def render_pooling_figure(path: str | Path, n: int = 41) -> Path:
    """Render the 2x2 surface figure to ``path`` (PNG, Agg backend); returns the path.

    Raises:
        MissingExtraError: matplotlib (the ``figures`` extra) is not installed.
    """
    matplotlib = require("matplotlib", "figures", "gfbgcn figures pooling")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    p1, p2, surfaces = pooling_surfaces(n)
    fig = plt.figure(figsize=(10.0, 8.6))
    for idx, (title, _) in enumerate(PANELS):
        ax = fig.add_subplot(2, 2, idx + 1, projection="3d")
        ax.plot_surface(
            p1, p2, surfaces[title], cmap="viridis", vmin=0.0, vmax=1.0,
            rstride=1, cstride=1, linewidth=0.2, edgecolor="k", antialiased=True,
        )
        ax.set_zlim(0.0, 1.0)
        ax.set_xlabel("$p_1$")
        ax.set_ylabel("$p_2$")
        ax.set_zlabel("response")
        ax.view_init(elev=25, azim=-125)
        letter = "abcd"[idx]
        ax.set_title(f"({letter}) {title}")
    fig.suptitle("Response of channel 1 to filter responses $(p_1, p_2)$")
    fig.tight_layout()
    out = atomic_write(path, lambda tmp: fig.savefig(tmp, dpi=100, format="png"))
    plt.close(fig)
    return out

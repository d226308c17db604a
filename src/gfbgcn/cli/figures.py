"""``gfbgcn figures pooling``: the paper's Fig. "pools" (drawn by :mod:`gfbgcn.figures`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from gfbgcn.figures import DEFAULT_OUT, FILE_NAME, render_pooling_figure


def figures_pooling_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``gfbgcn figures pooling``."""
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, metavar="DIR",
                        help=f"directory of {FILE_NAME} (default: {DEFAULT_OUT})")


def figures_pooling(args: argparse.Namespace) -> int:
    """Render the figure to ``<out>/pooling.png``; returns the exit status."""
    out = render_pooling_figure(Path(args.out) / FILE_NAME)
    print(f"wrote {out}")
    return 0

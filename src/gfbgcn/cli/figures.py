"""``gfbgcn figures pooling``: the paper's Fig. "pools" (drawn by
:mod:`gfbgcn.reproduce.figures`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from gfbgcn.cli.runtime.argtypes import nonempty_directory
from gfbgcn.core.outputs import check_results_directory
from gfbgcn.reproduce.figures import DEFAULT_OUT, FILE_NAME, render_pooling_figure


def figures_pooling_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``gfbgcn figures pooling``."""
    parser.add_argument("--out", type=nonempty_directory, default=DEFAULT_OUT, metavar="DIR",
                        help=f"directory of {FILE_NAME} (default: {DEFAULT_OUT})")


def figures_pooling(args: argparse.Namespace) -> int:
    """Render the figure to ``<out>/pooling.png``; returns the exit status."""
    check_results_directory(str(args.out))  # never a figure inside a saved model
    out = render_pooling_figure(Path(args.out) / FILE_NAME)
    print(f"wrote {out}")
    return 0

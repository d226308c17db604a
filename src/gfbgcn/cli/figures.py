"""``gfbgcn figures pooling``: the paper's Fig. "pools" (drawn by
:mod:`gfbgcn.reproduce.figures`)."""

from __future__ import annotations

import argparse

from gfbgcn.cli.runtime.argtypes import nonempty_directory
from gfbgcn.core.paths.outputs import check_results_directory
from gfbgcn.reproduce.figures import FILE_NAME, render_pooling_figure
from gfbgcn.reproduce.locations import results_directory


def figures_pooling_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``gfbgcn figures pooling``."""
    parser.add_argument("--out", type=nonempty_directory, default=None, metavar="DIR",
                        help=f"directory of {FILE_NAME} (default: docs/figures of the gfbgcn "
                        "source checkout gfbgcn runs from; required with an installed gfbgcn)")


def figures_pooling(args: argparse.Namespace) -> int:
    """Render the figure to ``<out>/pooling.png``; returns the exit status."""
    directory = results_directory(args.out, "figures")
    check_results_directory(str(directory))  # never a figure inside a saved model
    out = render_pooling_figure(directory / FILE_NAME)
    print(f"wrote {out}")
    return 0

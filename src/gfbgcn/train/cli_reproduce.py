"""``gfbgcn reproduce text``: run the text grid (resumable) and write docs/results/text.md."""

from __future__ import annotations

import argparse
import sys

from gfbgcn.runinfo import set_threads, thread_count
from gfbgcn.text.model import MODELS
from gfbgcn.train.reproduce_text import reproduce_text

DEFAULT_MODELS = ("gcn", "gfb-max", "gfb-mean", "gfb-diag", "gfb-topk",
                  "fbp", "cbp", "bp", "sqrt", "sgc", "gin")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data-dir", default=None, help="data root (default: $GFBGCN_DATA)")
    parser.add_argument("--datasets", nargs="+", default=None,
                        help="subset of 20ng r8 r52 ohsumed (default: all four)")
    parser.add_argument("--models", nargs="+", default=list(DEFAULT_MODELS), choices=MODELS,
                        metavar="MODEL", help=f"models to run (default: {' '.join(DEFAULT_MODELS)})")
    parser.add_argument("--seeds", type=int, default=10, help="seeds 0..N-1 per cell (10)")
    parser.add_argument("--epochs", type=int, default=200, help="maximum epochs (200)")
    parser.add_argument("--ablation", action="store_true",
                        help="also run GFB with the paper's fast GenVec (MaxVec, TopKVec), "
                             "GFB-MaxVec with lambda fixed 0 and Text SGC with lr 0.2")
    parser.add_argument("--variants", nargs="+", default=[], metavar="VARIANT",
                        help="also run these variants of every model they apply to: "
                             "fast (GFB MaxVec/TopKVec), lambda0, lam0init (GFB models), "
                             "eps-1 (Text GIN), lr0.2, stopacc")
    parser.add_argument("--raw-dir", default="docs/results/raw/text",
                        help="one JSON record per finished run (resume reads it)")
    parser.add_argument("--out", default="docs/results/text.md", help="report path")
    parser.add_argument("--figure", default="docs/figures/convergence.png",
                        help="convergence figure path")
    parser.add_argument("--notes", default="docs/results/text_notes.md",
                        help="hand-written notes appended to the report")
    parser.add_argument("--threads", type=thread_count, default=None,
                        help="torch CPU threads (default: torch's choice)")
    parser.add_argument("--report-only", action="store_true",
                        help="only re-render the report from existing records")


def run(args: argparse.Namespace) -> int:
    args._argv = sys.argv[3:] if len(sys.argv) > 3 else []
    set_threads(args.threads)
    return reproduce_text(args)

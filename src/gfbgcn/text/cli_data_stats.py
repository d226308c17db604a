"""``gfbgcn data stats NAME``: corpus and graph statistics (Table "statistics of datasets")."""

from __future__ import annotations

import argparse
import json

from gfbgcn.text.api import add_corpus_arguments, format_stats, graph_from_args


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_corpus_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")


def run(args: argparse.Namespace) -> int:
    _, graph = graph_from_args(args)
    stats = graph.stats()
    print(json.dumps(stats, indent=2) if args.json else format_stats(stats, graph.notes))
    return 0

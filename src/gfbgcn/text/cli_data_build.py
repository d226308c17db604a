"""``gfbgcn data build NAME``: build the Text GCN graph and store it in the cache."""

from __future__ import annotations

import argparse

from gfbgcn.text.api import add_corpus_arguments, format_stats, graph_from_args


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_corpus_arguments(parser)


def run(args: argparse.Namespace) -> int:
    _, graph = graph_from_args(args)
    how = "loaded from cache" if graph.from_cache else f"built in {graph.build_seconds:.1f} s"
    print(f"graph {graph.corpus_name} ({how}, key {graph.key or 'uncached'})")
    print(format_stats(graph.stats(), graph.notes))
    return 0

"""`gfbgcn data stats` and `gfbgcn data build`: corpus statistics, and the graph built into the
cache."""

from __future__ import annotations

import argparse
import json

from gfbgcn.cli.options import add_corpus_arguments, graph_from_args, graph_settings_text
from gfbgcn.core.paths import cache_required


def format_stats(stats: dict, notes: list[str], settings: str = "") -> str:
    """The statistics as a table; ``settings``: the graph settings, a row of their own."""
    rows = [
        ("dataset", stats["dataset"]),
        ("documents", f"{stats['docs']:,} (train {stats['train_docs']:,} / test "
                      f"{stats['test_docs']:,})"),
        ("classes", f"{stats['classes']:,}"),
        ("vocabulary", f"{stats['words']:,}"),
        ("nodes", f"{stats['nodes']:,}"),
        ("edges doc-word", f"{stats['doc_word_edges']:,}"),
        ("edges word-word", f"{stats['word_word_edges']:,}"),
        ("average length", f"{stats['average_length']:.2f}"),
        ("empty documents", f"{stats['empty_docs']:,}"),
    ] + ([("graph settings", settings)] if settings else [])
    width = max(len(k) for k, _ in rows)
    lines = [f"{k:<{width}}  {v}" for k, v in rows]
    lines += [f"note: {n}" for n in notes]
    return "\n".join(lines)


def data_stats_arguments(parser: argparse.ArgumentParser) -> None:
    add_corpus_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")


def data_stats(args: argparse.Namespace) -> int:
    """Corpus and graph statistics (the paper's Table "statistics of datasets")."""
    _, graph = graph_from_args(args)
    stats = graph.stats()
    print(json.dumps(stats, indent=2) if args.json
          else format_stats(stats, graph.notes, graph_settings_text(graph)))
    return 0


def data_build_arguments(parser: argparse.ArgumentParser) -> None:
    add_corpus_arguments(parser)


def data_build(args: argparse.Namespace) -> int:
    """Build the graph into the cache; print where it is (``data stats`` describes it).  The
    cache is this verb's output: one that cannot be written is an error, not a warning."""
    with cache_required():
        _, graph = graph_from_args(args)
    if graph.from_cache:
        print(f"{graph.corpus_name}: graph already cached (key {graph.key})")
    elif graph.key:
        print(f"{graph.corpus_name}: graph built in {graph.build_seconds:.1f} s and cached "
              f"(key {graph.key}): {graph.num_nodes:,} nodes, "
              f"{graph.num_doc_word + graph.num_word_word:,} edges")
    else:
        print(f"{graph.corpus_name}: graph built in {graph.build_seconds:.1f} s (not cached)")
    return 0

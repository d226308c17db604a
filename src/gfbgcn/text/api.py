"""One entry point from a corpus name or file to a built graph, shared by all commands."""

from __future__ import annotations

import argparse
from pathlib import Path

from gfbgcn.text.corpora import Corpus, load_corpus
from gfbgcn.text.graph import GraphConfig, TextGraph, build_text_graph


def add_corpus_arguments(parser: argparse.ArgumentParser, positional: bool = True) -> None:
    """Options that name a corpus and the graph settings (shared by data/train commands)."""
    if positional:
        parser.add_argument("dataset", help="20ng, r8, r52, ohsumed, or a CSV/TSV/JSONL file")
    parser.add_argument("--data-dir", default=None, help="data root (default: $GFBGCN_DATA, "
                        "then the user cache dir)")
    parser.add_argument("--text-col", default="text", help="text column of a corpus file")
    parser.add_argument("--label-col", default="label", help="label column of a corpus file")
    parser.add_argument("--split-col", default="split", help="train/test column of a corpus "
                        "file (absent: stratified 10%% test split drawn with --split-seed)")
    parser.add_argument("--split-seed", type=int, default=0, help="seed of that split")
    parser.add_argument("--skip-bad-rows", action="store_true",
                        help="skip malformed rows of a corpus file (reported) instead of failing")
    parser.add_argument("--window", type=int, default=20, help="PMI sliding window (20)")
    parser.add_argument("--min-freq", type=int, default=5, help="drop words seen fewer times (5)")
    parser.add_argument("--cooccurrence", choices=("window", "pair"), default="window",
                        help="W(i,j) as windows containing both words (paper) or position pairs "
                        "(reference code)")
    parser.add_argument("--no-cache", action="store_true", help="rebuild the graph, do not cache")


def corpus_from_args(args: argparse.Namespace) -> Corpus:
    return load_corpus(
        args.dataset,
        args.data_dir,
        text_col=args.text_col,
        label_col=args.label_col,
        split_col=args.split_col,
        seed=args.split_seed,
        skip_bad_rows=args.skip_bad_rows,
    )


def graph_from_args(args: argparse.Namespace) -> tuple[Corpus, TextGraph]:
    corpus = corpus_from_args(args)
    config = GraphConfig(window=args.window, min_freq=args.min_freq, cooccurrence=args.cooccurrence)
    return corpus, build_text_graph(corpus, config, cache=not args.no_cache)


def format_stats(stats: dict, notes: list[str]) -> str:
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
    ]
    width = max(len(k) for k, _ in rows)
    lines = [f"{k:<{width}}  {v}" for k, v in rows]
    lines += [f"note: {n}" for n in notes]
    return "\n".join(lines)


def describe_path(path: str | Path) -> str:
    return str(Path(path).resolve())

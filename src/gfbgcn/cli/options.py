"""The text verbs' options: the corpus (`--dataset`, its columns), its graph and tokenization,
and the training configuration (flags shared by verbs of every task: :mod:`gfbgcn.cli.flags`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gfbgcn.cli.flags import add_build_workers_argument, add_data_dir_argument
from gfbgcn.cli.runtime.argtypes import encoding_name, int_in, nonempty_path
from gfbgcn.core.errors import OptionError
from gfbgcn.core.validate import WINDOW_MAX, range_text
from gfbgcn.text.corpus.benchmarks import load_corpus
from gfbgcn.text.corpus.corpus import Corpus
from gfbgcn.text.estimator.settings import tokenization, train_config
from gfbgcn.text.graph.text_graph import GraphConfig, TextGraph, build_text_graph
from gfbgcn.text.search.own_corpus import is_own_file
from gfbgcn.text.tokenize.clean import Tokenizer
from gfbgcn.text.tokenize.registry import CJK_SPLITS, default_tokenizer_name
from gfbgcn.text.train.batching import AUTO
from gfbgcn.text.train.config import TrainConfig

if TYPE_CHECKING:
    from gfbgcn.text.estimator.classifier import TextGCNClassifier


#: Options that mean something only beside another: (option, destination, the one it needs).
NEEDS = (("--budget", "budget", "--auto", "auto"),
         ("--fanout", "fanout", "--batch-size", "batch_size"),
         ("--row-budget", "row_budget", "--batch-size", "batch_size"),
         ("--label-sep", "label_sep", "--multi-label", "multi_label"))
#: The defaults of those options where they apply.
FANOUT, LABEL_SEP = 32, "|"


def check_applicable(args: argparse.Namespace) -> None:
    """Refuse an option that would be ignored (``--budget`` without ``--auto``, ...), then
    give the options that apply their defaults; called as the command line is read."""
    for option, dest, needed, needed_dest in NEEDS:
        # --batch-size auto chooses fanout and row budget itself: they need an explicit N
        if getattr(args, dest) is not None and getattr(args, needed_dest) in (None, False, 0,
                                                                              AUTO):
            raise OptionError(f"{option} applies only with {needed}: add {needed}, or drop "
                              f"{option}")
    args.fanout = fanout_of(args)
    args.row_budget = args.row_budget or 0
    args.label_sep = LABEL_SEP if args.label_sep is None else args.label_sep


def batch_size_of(args: argparse.Namespace) -> int:
    """``--batch-size`` as a count: ``auto`` is full batch until ``gfbgcn train`` has seen the
    graph and chosen (:mod:`gfbgcn.text.train.batching`)."""
    return 0 if args.batch_size == AUTO else int(args.batch_size)


def fanout_of(args: argparse.Namespace) -> int:
    """``--fanout``, or its default where not given."""
    return FANOUT if args.fanout is None else int(args.fanout)


def add_corpus_arguments(parser: argparse.ArgumentParser) -> None:
    """``--dataset`` and the options that read a corpus and build its graph."""
    parser.add_argument("--dataset", type=nonempty_path, required=True, metavar="NAME|FILE",
                        help="20ng, r8, r52, ohsumed, or a CSV/TSV/JSONL corpus file")
    add_data_dir_argument(parser)
    parser.add_argument("--text-col", default="text", help="text column of a corpus file")
    parser.add_argument("--label-col", default="label", help="label column of a corpus file")
    parser.add_argument("--split-col", default=None, help="train/test column of a corpus "
                        "file; a named column must exist (default: 'split' where the file has "
                        "it, else a stratified 10%% test split drawn with --split-seed)")
    parser.add_argument("--split-seed", type=int_in(0), default=0,
                        help="seed of that split (0; >= 0)")
    parser.add_argument("--skip-bad-rows", action="store_true",
                        help="skip malformed rows of a corpus file (reported) instead of failing")
    parser.add_argument("--encoding", type=encoding_name, default="utf-8",
                        help="encoding of a corpus file (utf-8; a UTF-8 or UTF-16 byte-order "
                        "mark is recognised)")
    parser.add_argument("--window", type=int_in(2, WINDOW_MAX), default=20,
                        help=f"PMI sliding window (20; {range_text(2, WINDOW_MAX)})")
    parser.add_argument("--min-freq", type=int_in(1), default=5,
                        help="drop words seen fewer times (5; >= 1)")
    parser.add_argument("--cooccurrence", choices=("window", "pair"), default="window",
                        help="W(i,j) as windows containing both words (paper) or position pairs "
                        "(reference code)")
    parser.add_argument("--no-cache", action="store_true", help="rebuild the graph, do not cache")
    add_tokenizer_arguments(parser)
    add_build_workers_argument(parser)


def corpus_from_args(args: argparse.Namespace) -> Corpus:
    return load_corpus(
        args.dataset,
        args.data_dir,
        text_col=args.text_col,
        label_col=args.label_col,
        split_col=args.split_col,
        seed=args.split_seed,
        skip_bad_rows=args.skip_bad_rows,
        encoding=args.encoding,
    )


def run_provenance(args: argparse.Namespace, corpus: Corpus) -> dict[str, Any]:
    """What made a run, for its directory's ``config.json``: the command line, and the input,
    either a benchmark's name or the user's file (absolute path, sha256) with the columns read
    from it (``split``: the column named, or ``null``: ``split`` where the file fills it, else
    a drawn split)."""
    from gfbgcn.core.io import sha256_file

    command = ["gfbgcn", *getattr(args, "command_argv", [])]
    sources = [Path(s) for s in corpus.sources]
    if not (is_own_file(args.dataset) and sources):
        return {"command": command, "input": {"dataset": args.dataset}}
    return {"command": command, "input": {
        "files": [{"path": str(s.absolute()), "sha256": sha256_file(s)} for s in sources],
        "format": Path(args.dataset).suffix.lstrip(".").lower(),
        "encoding": args.encoding,
        "columns": {"text": args.text_col, "label": args.label_col, "split": args.split_col},
    }}


def graph_from_args(args: argparse.Namespace) -> tuple[Corpus, TextGraph]:
    tokenizer, stop_words = tokenization_from_args(args)  # bad values fail before reading
    config = GraphConfig(window=args.window, min_freq=args.min_freq, stop_words=stop_words,
                         cooccurrence=args.cooccurrence)
    corpus = corpus_from_args(args)
    return corpus, build_text_graph(corpus, config, tokenizer, cache=not args.no_cache,
                                    workers=args.build_workers)


def add_tokenizer_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tokenizer", default=None, metavar="NAME",
                        help="textgcn (the paper's ASCII cleaning; default for the four "
                        "benchmarks), unicode (words of any script, casefolded; default for a "
                        "corpus file) or whitespace")
    parser.add_argument("--stop-words", default="english", metavar="LANG|FILE|none",
                        help="stop words removed from the graph: an NLTK language (english), "
                        "a file with one word a line, or none")
    parser.add_argument("--no-numbers", action="store_true",
                        help="unicode tokenizer: drop tokens made of digits only")
    parser.add_argument("--cjk-split", choices=CJK_SPLITS, default="chars",
                        help="unicode tokenizer: split Chinese/Japanese/Thai runs into single "
                        "characters or character bigrams (chars)")


def tokenization_from_args(args: argparse.Namespace) -> tuple[Tokenizer, str | None]:
    """``(tokenizer, stop-word setting)`` of the command line; a bad value exits with one line."""
    return tokenization(args.tokenizer or default_tokenizer_name(args.dataset),
                        no_numbers=args.no_numbers, cjk_split=args.cjk_split,
                        stop_words=args.stop_words)


def train_config_from_args(args: argparse.Namespace) -> TrainConfig:
    """The training settings of ``gfbgcn train``, checked where the Python API checks them."""
    return train_config(
        model=args.model, seed=args.seed, hidden=args.hidden, dropout=args.dropout, lr=args.lr,
        weight_decay=args.weight_decay, epochs=args.epochs, patience=args.patience,
        val_ratio=args.val_ratio, fast_genvec=args.fast_genvec, fixed_lambda=args.fixed_lambda,
        batch_size=batch_size_of(args), fanout=fanout_of(args), features=args.features,
        multi_label=getattr(args, "multi_label", False), optimizer=args.optimizer,
        row_budget=args.row_budget or 0)


def classifier_from_args(args: argparse.Namespace) -> TextGCNClassifier:
    """The :class:`~gfbgcn.TextGCNClassifier` that ``gfbgcn train``'s options describe (the
    options' Python names); ``gfbgcn train`` fits it."""
    from gfbgcn.text.estimator.classifier import TextGCNClassifier

    return TextGCNClassifier(
        model=args.model, hidden=args.hidden, dropout=args.dropout, lr=args.lr,
        weight_decay=args.weight_decay, epochs=args.epochs, patience=args.patience,
        val_ratio=args.val_ratio, random_state=args.seed, fast_genvec=args.fast_genvec,
        fixed_lambda=args.fixed_lambda, features=args.features, window=args.window,
        min_freq=args.min_freq, stop_words=args.stop_words, cooccurrence=args.cooccurrence,
        tokenizer=args.tokenizer or default_tokenizer_name(args.dataset),
        no_numbers=args.no_numbers, cjk_split=args.cjk_split, batch_size=batch_size_of(args),
        fanout=fanout_of(args), device=str(args.device), auto=args.auto, budget=args.budget,
        baseline=not args.no_baseline,
        cache=not args.no_cache, build_workers=args.build_workers, verbose=not args.quiet,
        optimizer=args.optimizer, row_budget=args.row_budget or 0)

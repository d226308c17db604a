"""Command-line options of tokenization, shared by ``data stats``, ``data build`` and ``train``:
``--tokenizer``, ``--stop-words``, ``--no-numbers``, ``--cjk-split`` (see
:mod:`gfbgcn.text.tokenize.registry`)."""

from __future__ import annotations

import argparse
import sys

from gfbgcn.text.tokenize.preprocess import Tokenizer
from gfbgcn.text.tokenize.registry import (
    CJK_SPLITS,
    StopWordsError,
    TokenizerError,
    default_tokenizer_name,
    make_tokenizer,
    parse_stop_words,
)


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


def fail(message: str) -> SystemExit:
    """A one-line usage error, exit status 2."""
    print(f"error: {message}", file=sys.stderr)
    return SystemExit(2)


def tokenization_from_args(args: argparse.Namespace) -> tuple[Tokenizer, str | None]:
    """``(tokenizer, stop-word setting)`` of the command line; a bad value exits with one line."""
    name = args.tokenizer or default_tokenizer_name(args.dataset)
    try:
        if name != "unicode" and (args.no_numbers or args.cjk_split != "chars"):
            raise TokenizerError("--no-numbers and --cjk-split apply to --tokenizer unicode only")
        tokenizer = make_tokenizer(name, numbers=not args.no_numbers, cjk=args.cjk_split)
        stop_words = parse_stop_words(args.stop_words)
    except (TokenizerError, StopWordsError) as err:
        raise fail(str(err)) from None
    return tokenizer, stop_words

"""The flags several verbs share: one definition and one meaning each, added by a verb only when
it uses the flag (so no verb's ``--help`` shows a flag it would ignore).

Old spellings of renamed flags stay accepted for one version: :func:`add_deprecated_alias`
registers the old name hidden from ``--help``; using it prints ``warning: --old is deprecated,
use --new`` once on stderr and stores into the new flag's destination.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

import torch

from gfbgcn.cli.runtime.argtypes import (
    nonempty_directory,
    nonempty_path,
    positive_int,
    thread_count,
)
from gfbgcn.reproduce.harness import DEFAULT_OUT

#: What ``--threads`` means in every verb (``gfbgcn --help`` and each verb's help say it).
THREADS_HELP = ("torch CPU threads per process (default 0: torch's choice, shared among the "
                "--workers processes where there are several)")


class _DeprecatedAlias(argparse.Action):
    """An old spelling: warns once per command line, then acts as the new flag."""

    def __init__(self, option_strings: list[str], dest: str, *, new: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, **kwargs)
        self.new = new
        self.warned = False

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        if not self.warned:  # a script that repeats the flag hears about it once
            print(f"warning: {option_string} is deprecated, use {self.new}", file=sys.stderr)
            self.warned = True
        setattr(namespace, self.dest, values)


def add_deprecated_alias(parser: argparse.ArgumentParser, old: str,
                         new: argparse.Action) -> None:
    """Accept ``old`` as a hidden alias of the already added flag ``new`` (same type, nargs,
    choices and destination; no default of its own, so it never overwrites ``new``'s)."""
    parser.add_argument(old, action=_DeprecatedAlias, new=new.option_strings[0], dest=new.dest,
                        type=new.type, nargs=new.nargs, choices=new.choices,
                        metavar=new.metavar, default=argparse.SUPPRESS, help=argparse.SUPPRESS)


def add_data_dir_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data-dir", type=nonempty_path, default=None, metavar="DIR",
                        help="data root (default: $GFBGCN_DATA, then the user cache dir)")


def add_datasets_argument(parser: argparse.ArgumentParser, datasets: Sequence[str], *,
                          choices: bool = True) -> None:
    """``--datasets``: the data sets a reproduction runs (``datasets`` are the defaults and, with
    ``choices``, the only names accepted)."""
    parser.add_argument("--datasets", nargs="+", default=list(datasets), metavar="NAME",
                        choices=list(datasets) if choices else None,
                        help=f"data sets (default: {' '.join(datasets)})")


def add_models_argument(parser: argparse.ArgumentParser, models: Sequence[str],
                        default: Sequence[str] | None = None) -> None:
    """``--models``: the models a reproduction runs, of ``models`` (default: ``default`` or
    all)."""
    default_models = list(default or models)
    parser.add_argument("--models", nargs="+", default=default_models, choices=list(models),
                        metavar="MODEL", help=f"models, of {' '.join(models)} "
                        f"(default: {' '.join(default_models)})")


def add_seeds_argument(parser: argparse.ArgumentParser, default: int) -> None:
    parser.add_argument("--seeds", type=positive_int, default=default, metavar="N",
                        help=f"seeds 0..N-1 per cell ({default})")


def add_epochs_argument(parser: argparse.ArgumentParser, default: int) -> None:
    parser.add_argument("--epochs", type=positive_int, default=default, metavar="N",
                        help=f"maximum training epochs per run ({default})")


def add_results_arguments(parser: argparse.ArgumentParser) -> None:
    """``--out`` (the results directory of a reproduction) and ``--report-only``."""
    parser.add_argument("--out", type=nonempty_directory, default=DEFAULT_OUT, metavar="DIR",
                        help=f"results directory: the report, raw/<task>/ records, figures/ and "
                        f"<task>_notes.md (default: {DEFAULT_OUT})")
    parser.add_argument("--report-only", action="store_true",
                        help="re-render the report from the records already in --out; run "
                        "nothing (no training, no download, no log entry)")


def add_workers_argument(parser: argparse.ArgumentParser) -> None:
    """``--workers N``: processes running a reproduction's grid at once."""
    parser.add_argument("--workers", type=positive_int, default=1, metavar="N",
                        help="processes running the grid's runs at once (1; > 1: forked CPU "
                        "processes, so --device auto means the CPU)")


def add_build_workers_argument(parser: argparse.ArgumentParser) -> None:
    """``--build-workers N``: processes building a text graph (old spelling: ``--workers``)."""
    new = parser.add_argument(
        "--build-workers", type=positive_int, default=None, metavar="N",
        help="processes building the text graph (default: every available core; the graph "
        "does not depend on it)")
    add_deprecated_alias(parser, "--workers", new)


def add_threads_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--threads", type=thread_count, default=0, metavar="N",
                        help=THREADS_HELP)


def threads_of(args: argparse.Namespace) -> int | None:
    """The torch thread count each process of the command sets (``None``: torch's choice).

    ``--threads 0`` (the default) keeps torch's choice in a command of one process and divides
    it among ``--workers`` processes otherwise, so a grid neither oversubscribes the cores nor
    leaves them idle.
    """
    if args.threads:
        return int(args.threads)
    workers = int(getattr(args, "workers", 1) or 1)
    return None if workers == 1 else max(1, torch.get_num_threads() // workers)

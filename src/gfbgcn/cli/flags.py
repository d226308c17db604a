"""The flags several verbs share: one definition and one meaning each, added by a verb only when
it uses the flag (so no verb's ``--help`` shows a flag it would ignore).

Each concept has its own flag, and each flag one meaning in every verb that takes it (the same
table is printed by ``gfbgcn --help``, :data:`gfbgcn.cli.GRAMMAR`, and shown on the docs'
"Command line" page, ``docs/reference/cli.md``; a test keeps the three in step):

==========================  =====================================================================
``--dataset NAME|FILE``     the one corpus a verb works on (data stats, data build, train)
``--datasets NAME ...``     the data sets of a reproduction (reproduce *)
``--model NAME``            the one model ``train`` trains
``--models NAME ...``       a reproduction's models
``--seed N``                the seed a command's randomness starts from (train; reproduce
                            graphs: of the folds, fold k trains from N + k)
``--seeds N``               a count: seeds 0..N-1 per cell of a reproduction
``--select-seeds N``        a count: validation runs per candidate (reproduce entity)
``--max-seeds N``           a cap: at most N of each configuration's seeds (reproduce fidelity)
``--hidden N``              one hidden size (train)
``--hiddens N ...``         a grid of hidden sizes (reproduce graphs; ``--layers L ...``: of
                            layer counts)
``--epochs N``              the most training epochs of a run (early stopping may end it sooner)
``--fixed-epochs N``        the exact training epochs of every run, no early stopping
                            (reproduce entity)
``--batch-size N|auto``     training documents per step (train; 0: full batch)
``--predict-batch N``       documents per inference batch (predict, evaluate, serve)
``--graph-batch N``         graphs per training mini-batch (reproduce graphs)
``--build-workers N``       processes building a text graph (data *, train; default: every core)
``--workers N``             processes running a reproduction's grid at once (reproduce *; 1)
``--threads N``             torch CPU threads per process (0: torch's choice, shared among the
                            ``--workers`` processes)
``--device DEVICE``         auto, cpu, cuda, cuda:N
``--data-dir DIR``          the data root (else ``$GFBGCN_DATA``, else the user cache dir)
``--out DIR``               always a directory: a training run's, a reproduction's results, a
                            figure's, an evaluation's
``--save DIR``              a model directory for ``gfbgcn predict`` (train)
``--output FILE``           the one CSV file ``predict`` writes
``--report-only``           re-render a reproduction's report from the records in ``--out``
==========================  =====================================================================

Every numeric option is range-checked when the command line is parsed (``int_in``,
``float_in``, :func:`~gfbgcn.core.runinfo.thread_count`): a bad value is one ``error:`` line
naming the flag, exit status 2, before any work.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

import torch

from gfbgcn.cli.runtime.argtypes import (
    input_directory,
    nonempty_directory,
    positive_int,
    thread_count,
)

#: What ``--threads`` means in every verb (``gfbgcn --help`` and each verb's help say it).
THREADS_HELP = ("torch CPU threads per process (default 0: torch's choice, shared among the "
                "--workers processes where there are several)")


def add_data_dir_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data-dir", type=input_directory, default=None, metavar="DIR",
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
    """``--seeds N``: a count, the seeds 0..N-1 of every cell of a reproduction."""
    parser.add_argument("--seeds", type=positive_int, default=default, metavar="N",
                        help=f"seeds 0..N-1 per cell ({default}; >= 1)")


def add_epochs_argument(parser: argparse.ArgumentParser, default: int) -> None:
    """``--epochs N``: the most epochs a run trains (its early stopping may end it sooner)."""
    parser.add_argument("--epochs", type=positive_int, default=default, metavar="N",
                        help=f"maximum training epochs per run ({default}; >= 1)")


def add_results_arguments(parser: argparse.ArgumentParser) -> None:
    """``--out`` (the results directory of a reproduction) and ``--report-only``."""
    parser.add_argument("--out", type=nonempty_directory, default=None, metavar="DIR",
                        help="results directory: the report, raw/<task>/ records, figures/ and "
                        "<task>_notes.md (default: docs/results of the gfbgcn source checkout "
                        "gfbgcn runs from; required with an installed gfbgcn)")
    parser.add_argument("--report-only", action="store_true",
                        help="re-render the report from the records already in --out; run "
                        "nothing (no training, no download, no log entry)")


def add_workers_argument(parser: argparse.ArgumentParser) -> None:
    """``--workers N``: processes running a reproduction's grid at once."""
    parser.add_argument("--workers", type=positive_int, default=1, metavar="N",
                        help="processes running the grid's runs at once (1; >= 1; > 1: forked "
                        "CPU processes, so --device auto means the CPU)")


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

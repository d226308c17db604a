"""The ``gfbgcn`` command (also ``python -m gfbgcn``): ``gfbgcn <verb> ...``.

Every verb is a pair of functions in a module of this package, ``<name>_arguments(parser)``
and ``<name>(args) -> exit status``, that parse the command line and call the public Python
API of the task packages (the ``reproduce`` verbs share one pair, driven by the table of
:mod:`gfbgcn.cli.reproduce`; a verb's parser holds its command path as the default
``_command``); this file only wires them together, with one flag grammar (:data:`GRAMMAR`,
printed by ``gfbgcn --help``).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from gfbgcn.cli.reproduce import VERBS as REPRODUCTIONS  # the table alone: nothing heavy

# (command path, module, function name, help)
COMMANDS: tuple[tuple[tuple[str, ...], str, str, str], ...] = (
    (("data", "stats"), "gfbgcn.cli.data", "data_stats", "print corpus and text-graph statistics"),
    (("data", "build"), "gfbgcn.cli.data", "data_build", "build a corpus's text graph into the "
     "cache"),
    (("train",), "gfbgcn.cli.train", "train", "train a model on a text corpus"),
    (("predict",), "gfbgcn.cli.predict", "predict", "classify new documents with a saved model"),
    (("evaluate",), "gfbgcn.cli.evaluate", "evaluate", "score a saved model on a labelled file"),
    (("serve",), "gfbgcn.cli.serve", "serve", "serve a saved model over HTTP (JSON API and a "
     "page)"),
    # the reproductions: one module, one table (gfbgcn.cli.reproduce.VERBS)
    *((("reproduce", name), "gfbgcn.cli.reproduce", "reproduce", verb.help)
      for name, verb in REPRODUCTIONS.items()),
    (("figures", "pooling"), "gfbgcn.cli.figures", "figures_pooling",
     "render the pooling-operator figure"),
    (("cache", "info"), "gfbgcn.cli.cache", "cache_info", "show where the cache is, its size "
     "cap and the size of each kind"),
    (("cache", "clear"), "gfbgcn.cli.cache", "cache_clear", "remove cached graphs, "
     "embeddings or dataset folders"),
)

GRAMMAR = """\
One flag grammar: each concept has its own flag, a flag means the same in every verb that takes
it, and a verb takes only the flags it uses. A singular flag is one value; a plural flag is a
list or a count.
  --dataset NAME|FILE   the one corpus a verb works on (data stats, data build, train)
  --datasets NAME ...   the data sets of a reproduction (reproduce *)
  --model NAME          the one model train trains; --models NAME ...: a reproduction's models
  --seed N              the seed a command's randomness starts from (train; reproduce graphs:
                        of the folds, fold k uses N + k)
  --seeds N             a count: seeds 0..N-1 per cell of a reproduction
  --select-seeds N      a count: validation runs per candidate config (reproduce entity)
  --max-seeds N         a cap: at most N of each configuration's seeds (reproduce fidelity)
  --hidden N            one hidden size (train); --hiddens N ...: a grid of them (reproduce
                        graphs, with --layers L ...: a grid of layer counts)
  --epochs N            the most training epochs of a run (early stopping may end it sooner)
  --fixed-epochs N      the exact training epochs of every run, no early stopping (reproduce
                        entity)
  --batch-size N|auto   training documents per step (train; 0: full batch)
  --predict-batch N     documents per inference batch (predict, evaluate, serve)
  --graph-batch N       graphs per training mini-batch (reproduce graphs)
  --build-workers N     processes building a text graph (data *, train; default: every core)
  --workers N           processes running a reproduction's grid at once (reproduce *; 1)
  --threads N           torch CPU threads per process, in every verb that trains; default 0:
                        torch's choice, divided among the --workers processes where there are
                        several (never more threads than cores, none left idle)
  --device DEVICE       auto (a CUDA GPU if torch sees one, else the CPU), cpu, cuda, cuda:N
  --data-dir DIR        data root (else $GFBGCN_DATA, else the user cache dir)
  --out DIR             an output directory, always: a run (train), results (reproduce: the
                        report, raw/<task>/ records, figures/, <task>_notes.md), figures,
                        an evaluation (evaluate)
  --save DIR            a model directory for `gfbgcn predict` (train)
  --output FILE         the one file predict writes (CSV)
  --report-only         re-render a reproduction's report from the records in --out; run,
                        download and log nothing
Graph classification counts cross-validation folds instead of seeds: --folds K, --seed S.
Every number is range-checked as the command line is read: a bad one is one error line naming
the flag (exit status 2), before any work.
`gfbgcn <verb> --help` lists a verb's options."""


def _selected(argv: Sequence[str]) -> tuple[str, ...] | None:
    """The command path named by ``argv`` (e.g. ``("data", "stats")``), if any."""
    words = [a for a in argv if not a.startswith("-")]
    for path, _, _, _ in COMMANDS:
        if tuple(words[: len(path)]) == path:
            return path
    return None


class _Parser(argparse.ArgumentParser):
    """argparse's parser, except that a bad command line is an :class:`OptionError`: reported
    by :func:`main` in one line with exit status 2, like every other user error (argparse
    itself would print the usage and exit from inside the parser); and an option is only ever
    its whole name: argparse would take a prefix for the one option it starts, so ``--seed``
    would be ``--seeds`` and ``--hidden`` ``--hiddens`` in the verbs without them, another
    meaning under a flag's name."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)  # the verbs' parsers are made by this class too
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        from gfbgcn.core.errors import OptionError

        raise OptionError(f"{message} (`{self.prog} --help` lists the options)")


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The full parser; only the selected command's module is imported (fast start-up)."""
    from gfbgcn import __version__

    parser = _Parser(
        prog="gfbgcn",
        description="GFB-GCN: graph convolution with generalized factorized bilinear "
        "aggregation.",
        epilog=GRAMMAR,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"gfbgcn {__version__}")
    _add_debug(parser)
    groups: dict[tuple[str, ...], argparse._SubParsersAction] = {
        (): parser.add_subparsers(dest="verb", metavar="VERB", required=True)
    }
    selected = _selected(argv)
    for path, module_name, function, help_text in COMMANDS:
        for depth in range(1, len(path)):
            prefix = path[:depth]
            if prefix not in groups:
                sub = groups[path[: depth - 1]].add_parser(prefix[-1],
                                                           help=f"{prefix[-1]} commands")
                groups[prefix] = sub.add_subparsers(
                    dest="_".join(prefix) + "_verb", metavar="VERB", required=True
                )
        sub = groups[path[:-1]].add_parser(path[-1], help=help_text, description=help_text)
        _add_debug(sub)
        sub.set_defaults(_command=path)  # verbs sharing one pair of functions tell them apart
        if path == selected:
            module = importlib.import_module(module_name)
            getattr(module, f"{function}_arguments")(sub)
            sub.set_defaults(_run=getattr(module, function))
    return parser


def verb_parser(path: Sequence[str]) -> argparse.ArgumentParser:
    """The parser of one verb (``("cache", "info")``), its options added: the full parser
    built for ``path``, then its subparsers followed word by word (the CLI reference and the
    option tests read a verb's options from it)."""
    parser: argparse.ArgumentParser = build_parser(list(path))
    for word in path:
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = sub.choices[word]
    return parser


def _add_debug(parser: argparse.ArgumentParser) -> None:
    # SUPPRESS: a subcommand's default must not overwrite a --debug given before the verb
    parser.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                        help="on an error, show the Python traceback (also: GFBGCN_DEBUG=1)")


def _check_torchrun(path: tuple[str, ...] | None) -> None:
    """Under torchrun only ``train`` runs (its mini-batch training is shared by the processes;
    any other verb would just run once per process, all writing the same files)."""
    from gfbgcn.cli.runtime.torchrun import torchrun_rank
    from gfbgcn.core.errors import OptionError

    if torchrun_rank()[1] > 1 and path not in (None, ("train",)):
        raise OptionError(f"gfbgcn {' '.join(path)} does not run under torchrun (only train "
                          "--batch-size N does): run it in one process")


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; a failure prints one ``error: ...`` line (exit 2 for bad input, a
    :class:`~gfbgcn.core.errors.UserError` such as a bad option; 1 for a bug,
    :mod:`gfbgcn.cli.runtime.failures`) unless
    ``--debug`` or ``GFBGCN_DEBUG=1`` asks for the traceback (under torchrun, one line from
    rank 0 for all: :mod:`gfbgcn.cli.runtime.torchrun`)."""
    from gfbgcn.cli.parameters import flag_of, with_flags
    from gfbgcn.cli.runtime import failures
    from gfbgcn.cli.runtime.streams import (
        closable_stdout,
        ensure_standard_streams,
        output_failure,
        printable_streams,
        say,
    )
    from gfbgcn.cli.runtime.termination import Terminated, signals_as_exceptions
    from gfbgcn.cli.runtime.torchrun import report_failure, torchrun_rank
    from gfbgcn.core.paths import cache_cap, keep_missing_home_absent

    ensure_standard_streams()  # `gfbgcn ... >&- 2>&-`: printing goes nowhere, work goes on
    printable_streams()  # an ASCII terminal: escaped characters, never a lost result
    keep_missing_home_absent()
    argv = list(sys.argv[1:] if argv is None else argv)
    args = None
    try:
        args = build_parser(argv).parse_args(argv)
        _check_torchrun(_selected(argv))
        cache_cap()  # a bad $GFBGCN_CACHE_MAX: one line now, not a warning after the work
        args.command_argv = argv  # provenance: reports record the command that made them
        with signals_as_exceptions(), failures.one_line_warnings(flag_of), \
                closable_stdout() as stdout:
            status = int(args._run(args) or 0)
            stdout.flush()  # what is still buffered fails now, not silently at exit
        lost = output_failure(stdout)
        if lost is not None:
            raise lost
        return status
    except KeyboardInterrupt:
        if torchrun_rank()[0] == 0:  # under torchrun, every rank was interrupted: one says it
            say("interrupted")
        return 130
    except Terminated as stop:  # kill PID: what was being written has been cleaned up
        say(str(stop))
        return stop.exit_status
    except Exception as err:
        if failures.debug_requested(getattr(args, "debug", "--debug" in argv)):
            raise
        # the library names Python parameters; the command line shows its options
        return report_failure(with_flags(err), failures.report)  # under torchrun: rank 0 speaks


if __name__ == "__main__":
    sys.exit(main())

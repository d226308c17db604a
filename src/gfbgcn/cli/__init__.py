"""The ``gfbgcn`` command (also ``python -m gfbgcn``): ``gfbgcn <verb> ...``.

Every verb is a pair of functions in its task package, ``<name>_arguments(parser)`` and
``<name>(args) -> exit status``; this file only wires them together, with one flag grammar
(:data:`GRAMMAR`, printed by ``gfbgcn --help``).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

# (command path, module, function name, help)
COMMANDS: tuple[tuple[tuple[str, ...], str, str, str], ...] = (
    (("data", "stats"), "gfbgcn.cli.text_verbs", "data_stats", "print corpus and text-graph statistics"),
    (("data", "build"), "gfbgcn.cli.text_verbs", "data_build", "build a corpus's text graph into the "
     "cache"),
    (("train",), "gfbgcn.cli.text_verbs", "train", "train a model on a text corpus"),
    (("predict",), "gfbgcn.text.predict.io", "predict", "classify new documents with a saved model"),
    (("reproduce", "text"), "gfbgcn.cli.text_verbs", "reproduce_text",
     "reproduce the paper's text-classification tables"),
    (("reproduce", "inductive"), "gfbgcn.cli.text_verbs", "reproduce_inductive",
     "inductive (new documents) against transductive accuracy"),
    (("reproduce", "own-corpora"), "gfbgcn.cli.text_verbs", "reproduce_own_corpora",
     "paper defaults, --auto, TF-IDF + LR, combined and pretrained features on own corpora "
     "and the benchmarks"),
    (("reproduce", "entity"), "gfbgcn.entity.cli", "reproduce_entity",
     "reproduce the entity-classification table"),
    (("reproduce", "graphs"), "gfbgcn.graphcls.cli", "reproduce_graphs",
     "reproduce the graph-classification table"),
    (("reproduce", "fidelity"), "gfbgcn.fidelity.cli", "reproduce_fidelity",
     "experiments behind the cells that differ from the paper (issue 26)"),
    (("figures", "pooling"), "gfbgcn.figures", "figures_pooling",
     "render the pooling-operator figure"),
)

GRAMMAR = """\
One flag grammar across verbs:
  --dataset NAME|FILE   the one corpus a verb works on (data stats, data build, train)
  --datasets NAME ...   the data sets of a reproduction (reproduce *)
  --model NAME          the one model a verb trains; --models NAME ...: a reproduction's models
  --seed N              the seed of one run; --seeds N: seeds 0..N-1 per cell (reproduce)
  --epochs N            maximum training epochs
  --data-dir DIR        data root (else $GFBGCN_DATA, else the user cache dir)
  --out DIR             an output directory, always: a run (train), results (reproduce: the
                        report, raw/<task>/ records, figures/, <task>_notes.md), figures
  --save DIR            a model directory for `gfbgcn predict` (train)
  --output FILE         the one file predict writes (CSV)
  --threads N           torch CPU threads (per worker); --workers N: parallel processes
  --device DEVICE       auto (a CUDA GPU if torch sees one, else the CPU), cpu, cuda, cuda:N
  --report-only         re-render a report from its stored records, run nothing
Graph classification counts cross-validation folds instead of seeds: --folds K, --seed S.
`gfbgcn <verb> --help` lists a verb's options."""


def _selected(argv: Sequence[str]) -> tuple[str, ...] | None:
    """The command path named by ``argv`` (e.g. ``("data", "stats")``), if any."""
    words = [a for a in argv if not a.startswith("-")]
    for path, _, _, _ in COMMANDS:
        if tuple(words[: len(path)]) == path:
            return path
    return None


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The full parser; only the selected command's module is imported (fast start-up)."""
    from gfbgcn import __version__

    parser = argparse.ArgumentParser(
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
                sub = groups[path[: depth - 1]].add_parser(prefix[-1], help=f"{prefix[-1]} commands")
                groups[prefix] = sub.add_subparsers(
                    dest="_".join(prefix) + "_verb", metavar="VERB", required=True
                )
        sub = groups[path[:-1]].add_parser(path[-1], help=help_text, description=help_text)
        _add_debug(sub)
        if path == selected:
            module = importlib.import_module(module_name)
            getattr(module, f"{function}_arguments")(sub)
            sub.set_defaults(_run=getattr(module, function))
    return parser


def _add_debug(parser: argparse.ArgumentParser) -> None:
    # SUPPRESS: a subcommand's default must not overwrite a --debug given before the verb
    parser.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                        help="on an error, show the Python traceback (also: GFBGCN_DEBUG=1)")


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; a failure prints one ``error: ...`` line (exit 2 for bad input, 1 for
    a bug) unless ``--debug`` or ``GFBGCN_DEBUG=1`` asks for the traceback."""
    from gfbgcn.core import errors

    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    args.command_argv = argv  # provenance: reports record the command that made them
    debug = errors.debug_requested(getattr(args, "debug", False))
    try:
        with errors.one_line_warnings():
            return int(args._run(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except SystemExit as stop:  # raise SystemExit("message"): a user error, said in one line
        if isinstance(stop.code, str):
            print(f"error: {errors.one_line(stop.code)}", file=sys.stderr)
            return errors.USER_ERROR
        raise
    except Exception as err:
        if debug:
            raise
        return errors.report(err)


if __name__ == "__main__":
    sys.exit(main())

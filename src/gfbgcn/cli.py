"""The ``gfbgcn`` command line: ``gfbgcn <verb> ...``.

Each task area owns its sub-commands in a ``cli`` module exposing
``add_arguments(parser)`` and ``run(args) -> int``; this file only wires them together.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

# (command path, module implementing add_arguments/run, help)
_COMMANDS: tuple[tuple[tuple[str, ...], str, str], ...] = (
    (("data", "stats"), "gfbgcn.text.cli_data_stats", "print corpus and text-graph statistics"),
    (("data", "build"), "gfbgcn.text.cli_data_build", "build (and cache) a corpus's text graph"),
    (("train",), "gfbgcn.train.cli_train", "train a model on a text corpus"),
    (("predict",), "gfbgcn.text.cli_predict", "classify new documents with a saved model"),
    (("reproduce", "text"), "gfbgcn.train.cli_reproduce", "reproduce the paper's text tables"),
    (("reproduce", "entity"), "gfbgcn.entity.cli", "reproduce the entity-classification table"),
    (("reproduce", "graphs"), "gfbgcn.graphcls.cli", "reproduce the graph-classification table"),
    (("figures", "pooling"), "gfbgcn.figures", "render the pooling-operator figure"),
)


def _selected(argv: Sequence[str]) -> tuple[str, ...] | None:
    """The command path named by ``argv`` (e.g. ``("data", "stats")``), if any."""
    words = [a for a in argv if not a.startswith("-")]
    for path, _, _ in _COMMANDS:
        if tuple(words[: len(path)]) == path:
            return path
    return None


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The full parser; only the selected command's module is imported (fast start-up)."""
    parser = argparse.ArgumentParser(
        prog="gfbgcn",
        description="GFB-GCN: graph convolution with generalized factorized bilinear aggregation.",
    )
    from gfbgcn import __version__

    parser.add_argument("--version", action="version", version=f"gfbgcn {__version__}")
    groups: dict[tuple[str, ...], argparse._SubParsersAction] = {
        (): parser.add_subparsers(dest="verb", metavar="VERB", required=True)
    }
    selected = _selected(argv)
    for path, module_name, help_text in _COMMANDS:
        for depth in range(1, len(path)):
            prefix = path[:depth]
            if prefix not in groups:
                sub = groups[path[: depth - 1]].add_parser(prefix[-1], help=f"{prefix[-1]} commands")
                groups[prefix] = sub.add_subparsers(
                    dest="_".join(prefix) + "_verb", metavar="VERB", required=True
                )
        sub = groups[path[:-1]].add_parser(path[-1], help=help_text, description=help_text)
        if path == selected:
            module = importlib.import_module(module_name)
            module.add_arguments(sub)
            sub.set_defaults(_run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    try:
        return int(args._run(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())

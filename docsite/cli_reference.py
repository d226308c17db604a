"""The command-line reference, written from the real parsers when the site is built.

:func:`gfbgcn.cli.build_parser` adds a verb's options only for the verb it is given, so each
verb's parser is built on its own (``build_parser(["train"])``) and read back: its usage line,
its description and, group by group, every option with the help ``--help`` prints (defaults
and ranges included).  Nothing here is typed by hand: a new option or verb appears on the
site at the next build.
"""

from __future__ import annotations

import argparse
import html

from gfbgcn.cli import COMMANDS, GRAMMAR, verb_parser

#: Options every verb has, described once at the top of the page instead of in every table.
SHARED = ("-h", "--debug")


def verbs() -> list[tuple[str, ...]]:
    """Every command path, in the order ``gfbgcn --help`` lists them."""
    return [path for path, *_ in COMMANDS]


def cell(text: str) -> str:
    """Help text as one Markdown table cell: HTML and Markdown's own characters escaped,
    backquoted code kept as code."""
    text = html.escape(" ".join(text.split()), quote=False)
    for char in "|*_[]":
        text = text.replace(char, "\\" + char)
    return text


def option_rows(parser: argparse.ArgumentParser, actions: list[argparse.Action]) -> list[str]:
    """Table rows ``| invocation | help |`` of ``actions`` (shared and hidden ones left out)."""
    formatter = parser._get_formatter()
    rows = []
    for action in actions:
        if action.help == argparse.SUPPRESS or set(action.option_strings) & set(SHARED):
            continue
        invocation = formatter._format_action_invocation(action)
        help_text = formatter._expand_help(action) if action.help else ""
        if action.required and action.option_strings:
            help_text += " (required)"
        code = html.escape(invocation).replace("|", "&#124;")  # not a cell boundary
        rows.append(f"| <code>{code}</code> | {cell(help_text)} |")
    return rows


def verb_markdown(path: tuple[str, ...]) -> str:
    """One verb's section: heading, description, usage and a table per option group."""
    parser = verb_parser(path)
    name = "gfbgcn " + " ".join(path)
    usage = parser.format_usage().removeprefix("usage: ").strip()
    parts = [f"## `{name}`", "", cell(parser.description or ""), "",
             "```text", usage, "```", ""]
    for group in parser._action_groups:
        rows = option_rows(parser, group._group_actions)
        if not rows:
            continue
        title = "arguments" if group.title == "positional arguments" else group.title
        parts += [f"**{cell(title or 'options').capitalize()}**", "",
                  "| argument | meaning |", "|---|---|", *rows, ""]
    return "\n".join(parts)


def cli_markdown() -> str:
    """The whole generated reference: the shared grammar, then every verb."""
    head = ["## Every verb", "",
            "`-h`/`--help` prints a verb's options as below; `--debug` (any verb, or "
            "`GFBGCN_DEBUG=1`) shows the Python traceback of an error instead of its one line.",
            "", "`gfbgcn --help` ends with the flag grammar:", "", "```text", GRAMMAR, "```", ""]
    return "\n".join(head + [verb_markdown(path) for path in verbs()])

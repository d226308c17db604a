"""The CLI reference is written from the real parsers: every verb, every option of each, and
what ``--help`` says about it."""

from __future__ import annotations

import argparse
import re

import pytest

from docsite.cli_reference import cell, cli_markdown, verb_markdown, verb_parser, verbs
from gfbgcn.cli import COMMANDS


def test_every_verb_has_a_section() -> None:
    text = cli_markdown()
    assert verbs() == [path for path, *_ in COMMANDS]
    for path in verbs():
        assert f"## `gfbgcn {' '.join(path)}`" in text


@pytest.mark.parametrize("path", verbs(), ids=" ".join)
def test_every_option_of_a_verb_is_listed_with_its_help(path: tuple[str, ...]) -> None:
    parser = verb_parser(path)
    section = verb_markdown(path)
    options = [a for a in parser._actions if a.option_strings
               and not set(a.option_strings) & {"-h", "--debug"}]
    assert options  # the verb's own options were added (build_parser adds them on request)
    for action in options:
        assert f"<code>{action.option_strings[0]}" in section, action.option_strings
        if action.help and action.help != argparse.SUPPRESS and "%(" not in action.help:
            first_words = " ".join(action.help.split()[:3])
            assert cell(first_words) in section, (action.option_strings, first_words)


def test_a_new_option_appears_without_editing_the_page(monkeypatch) -> None:
    import gfbgcn.cli.evaluate as evaluate

    original = evaluate.evaluate_arguments

    def with_one_more(parser: argparse.ArgumentParser) -> None:
        original(parser)
        parser.add_argument("--brand-new", metavar="N", help="an option added | today")

    monkeypatch.setattr(evaluate, "evaluate_arguments", with_one_more)
    section = verb_markdown(("evaluate",))
    assert "| <code>--brand-new N</code> | an option added \\| today |" in section


def test_table_cells_escape_markdown_and_html() -> None:
    assert cell("a | b * c <d> [e]_f") == "a \\| b \\* c &lt;d&gt; \\[e\\]\\_f"
    assert cell("keeps `code`\n  and   joins lines") == "keeps `code` and joins lines"


def test_choices_with_pipes_stay_in_one_cell() -> None:
    section = verb_markdown(("train",))
    row = next(line for line in section.splitlines() if "<code>--dataset" in line)
    assert re.fullmatch(r"\| <code>[^|]*</code> \| [^|]*(\\\|[^|]*)* \|", row), row

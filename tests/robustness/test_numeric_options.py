"""C. Every numeric option of every verb is range-checked as the command line is read: a bad
value (out of range, NaN, infinite, not a number) ends the command with one ``error:`` line
naming the flag, exit status 2, before any work.  The verbs' options are read from the parsers
themselves, so a numeric option added without a range (or without a case here) fails a test."""

from __future__ import annotations

import argparse

import pytest

from gfbgcn.cli import COMMANDS, main, verb_parser
from gfbgcn.cli.runtime.argtypes import PATH_TYPES, encoding_name


def _prefix(path: tuple[str, ...], tmp_path) -> list[str]:
    """The words a verb needs before an option can be checked (a corpus, a model), chosen so
    that it fails before any work should the bad value be taken after all: a file that does
    not exist, a report of no records under a scratch ``--out``."""
    if path[0] in ("train", "data"):
        return ["--dataset", str(tmp_path / "missing.csv")]
    if path[0] == "predict":
        return [str(tmp_path / "no-model"), "--text", "x"]
    if path[0] == "evaluate":
        return [str(tmp_path / "no-model"), "--input", str(tmp_path / "missing.csv")]
    if path[0] == "serve":
        return [str(tmp_path / "no-model")]
    if path[0] == "reproduce":
        return ["--report-only", "--out", str(tmp_path / "out")]
    return []


#: Out-of-range values of each numeric flag (the ranges are the flags' own: see --help).
BAD = {
    "--split-seed": ["-1", "1.5"],
    "--window": ["1", "10001"],
    "--min-freq": ["0"],
    "--build-workers": ["0"],
    "--seed": ["-1", "4294967296", "x"],
    "--epochs": ["0", "-3"],
    "--fixed-epochs": ["0"],
    "--patience": ["0"],
    "--hidden": ["0"],
    "--lr": ["0", "-0.1", "nan", "inf", "1e9"],
    "--dropout": ["1", "-0.1", "nan"],
    "--weight-decay": ["-1", "nan", "inf"],
    "--val-ratio": ["0", "1", "nan"],
    "--fixed-lambda": ["nan", "-inf", "1e9"],
    "--threads": ["-1", "two"],
    "--batch-size": ["-1", "many"],
    "--fanout": ["0"],
    "--row-budget": ["-1"],
    "--budget": ["0", "-5", "5x", "2.5", "nanm"],
    "--top-k": ["0"],
    "--predict-batch": ["0"],
    "--seeds": ["0", "-2"],
    "--select-seeds": ["-5"],
    "--max-seeds": ["0"],
    "--workers": ["0"],
    "--lambda-inits": ["nan", "1e9"],
    "--hiddens": ["0"],
    "--layers": ["0"],
    "--folds": ["1", "0"],
    "--fold-limit": ["0"],
    "--graph-batch": ["0"],
    "--batch-runs": ["0", "-1"],
    "--port": ["-1", "65536", "x"],
    "--max-texts": ["0"],
    "--max-bytes": ["0", "-1"],
    "--older-than": ["-1d", "7", "7y", "soon"],
    "--timeout": ["0", "-1", "nan", "3601"],
    "--max-connections": ["0"],
}

#: Options whose value is text, not a number (names, columns, files are checked elsewhere).
TEXT = {"--text-col", "--label-col", "--split-col", "--tokenizer", "--stop-words",
        "--label-sep", "--device", "--text", "--variants", "--configs", "--datasets", "--id-col",
        "--host"}
#: argparse types of paths and encodings (not numbers).
NOT_NUMBERS = {*PATH_TYPES, encoding_name}
#: Verbs that take no number.
NO_NUMBER = {("figures", "pooling"), ("cache", "info")}


def _valued_options(path: tuple[str, ...]) -> list[argparse.Action]:
    """The verb's options that take a value (not flags, not --help)."""
    return [a for a in verb_parser(path)._actions
            if a.option_strings and a.nargs != 0 and a.option_strings[0] != "--help"]


def _numeric(action: argparse.Action) -> bool:
    return action.type is not None and action.type not in NOT_NUMBERS


VERBS = [path for path, _, _, _ in COMMANDS]
CASES = [(path, action.option_strings[0], value)
         for path in VERBS for action in _valued_options(path) if _numeric(action)
         for value in BAD.get(action.option_strings[0], ["<no bad value listed>"])]


@pytest.mark.parametrize("path", VERBS, ids=" ".join)
def test_every_valued_option_is_numeric_and_checked_or_text(path) -> None:
    """A numeric option has an argparse type with its range and a case in BAD; the others are
    paths, encodings, choices or text."""
    for action in _valued_options(path):
        flag = action.option_strings[0]
        if _numeric(action):
            assert flag in BAD, f"{' '.join(path)} {flag}: add its bad values to BAD"
        else:
            assert action.type in NOT_NUMBERS or action.choices is not None or flag in TEXT, (
                f"{' '.join(path)} {flag}: a value with no type, no choices and not known as "
                "text (a number must get a range-checking type)")


@pytest.mark.parametrize("path, flag, value", CASES,
                         ids=[f"{' '.join(p)} {f} {v}" for p, f, v in CASES])
def test_a_bad_number_is_one_line_naming_the_flag_exit_2(path, flag, value, tmp_path,
                                                          capsys) -> None:
    assert main([*path, *_prefix(path, tmp_path), f"{flag}={value}"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert err.startswith(f"error: argument {flag}: "), err
    assert not list(tmp_path.iterdir())  # nothing was started


def test_the_cases_cover_every_verb_that_takes_a_number() -> None:
    covered = {path for path, _, _ in CASES}
    assert covered == set(VERBS) - NO_NUMBER

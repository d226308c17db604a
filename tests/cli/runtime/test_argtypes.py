"""argparse types: a word parsed and checked by the library's own check, refused in argparse's
one line (``argument --x: must be ...``) without the Python parameter's name."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from gfbgcn.cli.runtime import argtypes


def test_ranges():
    assert argtypes.int_in(1)("3") == 3 and argtypes.float_in(0, 1, low_open=True)("0.5") == 0.5
    assert argtypes.positive_int("3") == 3
    for parse, text, message in (
            (argtypes.int_in(1), "0", "must be >= 1, got 0"),
            (argtypes.float_in(0, low_open=True), "0", "must be > 0, got 0"),
            (argtypes.float_in(), "inf", "must be a finite number, got inf"),
            (argtypes.int_in(0), "1.5", "not a whole number: '1.5'"),
            (argtypes.float_in(), "fast", "not a number: 'fast'"),
            (argtypes.positive_int, "-2", "must be >= 1, got -2")):
        with pytest.raises(argparse.ArgumentTypeError) as info:
            parse(text)
        assert str(info.value) == message


def test_thread_count():
    assert argtypes.thread_count("0") == 0 and argtypes.thread_count("4") == 4
    for bad, message in (("-1", "must be >= 0 (0: torch's choice), got -1"),
                         ("two", "not a whole number: 'two'"), ("1.5", "not a whole number")):
        with pytest.raises(argparse.ArgumentTypeError, match=f"^{re.escape(message)}"):
            argtypes.thread_count(bad)


def test_paths_and_encodings():
    assert argtypes.nonempty_path("a.csv") == "a.csv"
    assert argtypes.nonempty_directory("out") == Path("out")
    for parse in (argtypes.nonempty_path, argtypes.nonempty_directory):
        with pytest.raises(argparse.ArgumentTypeError, match="^empty path"):
            parse(" ")
    assert argtypes.encoding_name("UTF8") == "utf-8"
    with pytest.raises(argparse.ArgumentTypeError, match="^unknown encoding 'klingon'"):
        argtypes.encoding_name("klingon")


def test_a_bad_value_is_one_line_naming_the_flag(capsys: pytest.CaptureFixture[str]):
    from gfbgcn.cli import main

    assert main(["train", "--dataset", "r8", "--epochs", "0"]) == 2
    assert capsys.readouterr().err == ("error: argument --epochs: must be >= 1, got 0 "
                                       "(`gfbgcn train --help` lists the options)\n")

"""One-line error messages, exit statuses and option ranges of the command line."""

from __future__ import annotations

import argparse
import pickle

import pytest

from gfbgcn.core import errors
from gfbgcn.core.validate import float_in, int_in, range_text


def test_exit_status_separates_bad_input_from_bugs():
    assert errors.exit_status(errors.UserError("x")) == 2
    assert errors.exit_status(FileNotFoundError(2, "No such file", "a.csv")) == 2
    assert errors.exit_status(LookupError("Resource stopwords not found")) == 2
    assert errors.exit_status(IndexError("list index out of range")) == 1
    assert errors.exit_status(KeyError("x")) == 1
    assert errors.describe(FileNotFoundError(2, "No such file", "a.csv")) == "a.csv: No such file"


def test_dataset_unavailable_is_bad_input_with_a_portable_message():
    err = errors.DatasetUnavailableError("AM data unavailable: in /home/u/data")
    assert isinstance(err, errors.UserError) and isinstance(err, FileNotFoundError)
    assert errors.exit_status(err) == 2
    assert str(err) == err.portable == "AM data unavailable: in /home/u/data"
    err = errors.DatasetUnavailableError("in /home/u/data", "in <data root>")
    assert (str(err), err.portable) == ("in /home/u/data", "in <data root>")
    again = pickle.loads(pickle.dumps(err))  # crosses process pools
    assert type(again) is errors.DatasetUnavailableError
    assert (str(again), again.portable) == ("in /home/u/data", "in <data root>")


def test_one_line_collapses_boxed_messages():
    boxed = "\n*****\n  Resource stopwords not found.\n  Please use the NLTK Downloader\n*****\n"
    assert errors.one_line(boxed) == "Resource stopwords not found. Please use the NLTK Downloader"
    assert errors.one_line("--fast-genvec applies to gfb-*") == "--fast-genvec applies to gfb-*"


def test_debug_from_flag_or_environment(monkeypatch):
    monkeypatch.delenv("GFBGCN_DEBUG", raising=False)
    assert not errors.debug_requested() and errors.debug_requested(True)
    monkeypatch.setenv("GFBGCN_DEBUG", "1")
    assert errors.debug_requested()
    monkeypatch.setenv("GFBGCN_DEBUG", "0")
    assert not errors.debug_requested()


def test_ranges():
    assert range_text(1, None) == ">= 1" and range_text(0, 1, True, True) == "in (0, 1)"
    assert int_in(1)("3") == 3 and float_in(0, 1, low_open=True)("0.5") == 0.5
    for parse, text in ((int_in(1), "0"), (float_in(0, low_open=True), "0"),
                        (float_in(), "inf"), (int_in(0), "1.5")):
        with pytest.raises(argparse.ArgumentTypeError):
            parse(text)


def test_check_option_names_the_python_parameter():
    from gfbgcn.core.validate import check_option

    with pytest.raises(errors.OptionError, match="^epochs must be >= 1, got 0$") as info:
        check_option("epochs", 0, 1, whole=True)
    assert info.value.parameters == ("epochs",)
    assert info.value.render(lambda name: f"--{name}") == "--epochs must be >= 1, got 0"
    plain = errors.OptionError("a message with {braces} kept as it is")
    assert str(plain) == "a message with {braces} kept as it is" and plain.parameters == ()

"""The error hierarchy: one-line messages and options named by their Python parameter (how the
command line reports errors: ``tests/cli/runtime/test_failures.py``)."""

from __future__ import annotations

import pickle

import pytest

from gfbgcn.cli.runtime.failures import exit_status
from gfbgcn.core import errors


def test_dataset_unavailable_is_bad_input_with_a_portable_message():
    err = errors.DatasetUnavailableError("AM data unavailable: in /home/u/data")
    assert isinstance(err, errors.UserError) and isinstance(err, FileNotFoundError)
    assert exit_status(err) == 2
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


def test_an_option_error_names_parameters_and_renders_them_otherwise():
    err = errors.OptionError("{0} and {1} must differ, got {value}", "out", "save", value=3)
    assert str(err) == "out and save must differ, got 3" and err.parameters == ("out", "save")
    assert err.render(lambda name: f"--{name}") == "--out and --save must differ, got 3"
    copy = pickle.loads(pickle.dumps(err))  # through a process pool: parameters kept
    assert type(copy) is errors.OptionError and copy.parameters == ("out", "save")
    plain = errors.OptionError("a message with {braces} kept as it is")
    assert str(plain) == "a message with {braces} kept as it is" and plain.parameters == ()


def test_a_phase_names_where_a_failure_happened():
    with pytest.raises(MemoryError) as info, errors.phase("training"):
        raise MemoryError()
    assert errors.phase_of(info.value) == "training" and errors.is_out_of_memory(info.value)
    assert not errors.is_out_of_memory(ValueError("x"))


def test_a_parameter_warning_names_parameters_and_renders_them_otherwise():
    warning = errors.ParameterWarning("{reason}; turn the cache off: {0}", "cache",
                                      reason="cannot write {x}")
    assert str(warning) == "cannot write {x}; turn the cache off: cache"
    assert warning.render(lambda name: f"--no-{name}") == \
        "cannot write {x}; turn the cache off: --no-cache"

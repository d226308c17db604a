"""How the command line reports a failure: exit statuses, one-line messages, ``--debug``."""

from __future__ import annotations

import errno
import warnings

import pytest

from gfbgcn.cli import main
from gfbgcn.cli.runtime import failures
from gfbgcn.core.errors import OptionError, ParameterWarning, UserError, phase


def test_exit_status_separates_bad_input_from_bugs():
    assert failures.exit_status(UserError("x")) == failures.USER_ERROR == 2
    assert failures.exit_status(OptionError("{0} must be >= 1", "epochs")) == 2
    assert failures.exit_status(FileNotFoundError(2, "No such file", "a.csv")) == 2
    assert failures.exit_status(LookupError("Resource stopwords not found")) == 2
    assert failures.exit_status(OSError(errno.ENOSPC, "No space left on device")) == 2
    for bug in (IndexError("list index out of range"), KeyError("x"),
                ValueError("hidden must be positive"), TypeError("expected a Tensor")):
        assert failures.exit_status(bug) == failures.INTERNAL_ERROR == 1
    assert failures.describe(FileNotFoundError(2, "No such file", "a.csv")) == \
        "a.csv: No such file"


def test_out_of_memory_names_the_phase_and_the_flags_that_need_less():
    with pytest.raises(MemoryError) as info, phase("training"):
        raise MemoryError()
    assert failures.exit_status(info.value) == 2
    assert failures.describe(info.value).startswith("out of memory while training; need less")


def test_debug_from_flag_or_environment(monkeypatch):
    monkeypatch.delenv("GFBGCN_DEBUG", raising=False)
    assert not failures.debug_requested() and failures.debug_requested(True)
    monkeypatch.setenv("GFBGCN_DEBUG", "1")
    assert failures.debug_requested()
    monkeypatch.setenv("GFBGCN_DEBUG", "0")
    assert not failures.debug_requested()


def test_a_bare_value_error_is_an_internal_error_with_the_traceback_hint(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A library bug that raises ValueError is not blamed on the user's input."""
    from gfbgcn.cli import figures

    def bug(args: object) -> int:
        raise ValueError("hidden_channels must be positive")

    monkeypatch.delenv("GFBGCN_DEBUG", raising=False)
    monkeypatch.setattr(figures, "figures_pooling", bug)
    assert main(["figures", "pooling"]) == 1
    assert capsys.readouterr().err == (
        "error: internal error (ValueError: hidden_channels must be positive); rerun with "
        "--debug (or GFBGCN_DEBUG=1) for the traceback and please report it\n")
    with pytest.raises(ValueError, match="hidden_channels"):  # --debug: the traceback
        main(["figures", "pooling", "--debug"])


def test_an_option_error_names_the_flag(monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    from gfbgcn.cli import figures

    def bad(args: object) -> int:
        raise OptionError("{0} must be >= 1, got {value}", "min_freq", value=0)

    monkeypatch.setattr(figures, "figures_pooling", bad)
    assert main(["figures", "pooling"]) == 2
    assert capsys.readouterr().err == "error: --min-freq must be >= 1, got 0\n"


def test_warnings_are_one_line_with_parameters_spelled_as_flags(
        capsys: pytest.CaptureFixture[str]) -> None:
    with failures.one_line_warnings(lambda name: f"--no-{name}"):
        warnings.warn(ParameterWarning("cannot write\nthe cache; turn it off: {0}", "cache"),
                      stacklevel=1)
        warnings.warn("plain {0}", UserWarning, stacklevel=1)
    assert capsys.readouterr().err == ("warning: cannot write the cache; turn it off: --no-cache\n"
                                       "warning: plain {0}\n")

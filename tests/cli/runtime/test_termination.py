"""SIGTERM and SIGHUP become an exception inside a command, so clean-up code runs."""

from __future__ import annotations

import os
import signal

import pytest

from gfbgcn.cli.runtime.termination import Terminated, signals_as_exceptions


def test_sigterm_raises_terminated_and_the_default_comes_back():
    cleaned = []
    with pytest.raises(Terminated) as info, signals_as_exceptions():
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            pytest.fail("not raised")
        finally:
            cleaned.append(True)
    assert cleaned == [True] and str(info.value) == "terminated"
    assert info.value.exit_status == 128 + signal.SIGTERM
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_a_handler_someone_installed_is_kept():
    seen = []
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: seen.append(signum))
    try:
        with signals_as_exceptions():
            os.kill(os.getpid(), signal.SIGTERM)
        assert seen == [signal.SIGTERM]
    finally:
        signal.signal(signal.SIGTERM, previous)

"""Progress bars draw on a terminal only: a redirected standard error gets no redraws."""

from __future__ import annotations

import io
import sys

import pytest

from gfbgcn.core.progress import progress_bar


class _Stream(io.StringIO):
    def __init__(self, terminal: bool) -> None:
        super().__init__()
        self.terminal = terminal

    def isatty(self) -> bool:
        return self.terminal


@pytest.mark.parametrize("terminal", [False, True])
def test_a_bar_draws_only_on_a_terminal(monkeypatch, terminal):
    stream = _Stream(terminal)
    monkeypatch.setattr(sys, "stderr", stream)
    items = list(progress_bar(range(50), desc="work", mininterval=0))
    assert items == list(range(50))  # the iterable passes through either way
    assert ("work" in stream.getvalue()) is terminal


def test_show_false_draws_nothing_even_on_a_terminal(monkeypatch):
    stream = _Stream(True)
    monkeypatch.setattr(sys, "stderr", stream)
    with progress_bar(total=3, show=False) as bar:
        bar.update(3)
    assert stream.getvalue() == ""

"""What a failure prints under torchrun, rank by rank (:mod:`gfbgcn.cli.runtime.torchrun`); the
whole behaviour with two processes: ``tests/robustness/test_torchrun.py``."""

from __future__ import annotations

import pytest

from gfbgcn.cli.runtime import failures, torchrun
from gfbgcn.core.errors import UserError


@pytest.fixture()
def ranks(monkeypatch):
    def set_rank(rank: int, world: int) -> None:
        monkeypatch.setenv("RANK", str(rank))
        monkeypatch.setenv("WORLD_SIZE", str(world))
        monkeypatch.delenv("TORCHELASTIC_USE_AGENT_STORE", raising=False)  # no store
    return set_rank


def test_outside_torchrun_a_failure_is_reported_as_ever(monkeypatch, capsys):
    monkeypatch.delenv("WORLD_SIZE", raising=False)
    assert torchrun.torchrun_rank() == (0, 1)
    assert torchrun.report_failure(UserError("bad"), failures.report) == 2
    assert capsys.readouterr().err == "error: bad\n"


def test_rank_zero_reports(ranks, capsys):
    ranks(0, 2)
    assert torchrun.report_failure(UserError("bad"), failures.report, wait=0.1) == 2
    assert capsys.readouterr().err == "error: bad\n"


def test_without_rank_zero_word_another_rank_says_which_it_is(ranks, capsys):
    ranks(1, 2)
    assert torchrun.torchrun_rank() == (1, 2)
    assert torchrun.report_failure(UserError("bad"), failures.report, wait=0.1) == 2
    assert capsys.readouterr().err == "error: rank 1: bad\n"


def test_a_malformed_environment_is_not_torchrun(monkeypatch):
    monkeypatch.setenv("WORLD_SIZE", "two")
    assert torchrun.torchrun_rank() == (0, 1)

"""Run provenance helpers."""

from __future__ import annotations

import pytest
import torch

from gfbgcn.runinfo import machine_info, set_threads


@pytest.fixture
def restore_threads():
    before = torch.get_num_threads()
    yield before
    torch.set_num_threads(before)


def test_set_threads_sets_and_is_recorded(restore_threads):
    set_threads(1)
    assert torch.get_num_threads() == 1
    assert machine_info()["torch_threads"] == 1


@pytest.mark.parametrize("threads", [None, 0])
def test_set_threads_none_keeps_torch_choice(restore_threads, threads):
    torch.set_num_threads(2)
    set_threads(threads)
    assert torch.get_num_threads() == 2


def test_set_threads_rejects_negative(restore_threads):
    with pytest.raises(ValueError, match="threads must be >= 0"):
        set_threads(-1)


@pytest.mark.parametrize("verb", [["train", "--dataset", "r8"], ["reproduce", "text"]])
@pytest.mark.parametrize("value", ["-1", "two"])
def test_bad_threads_flag_is_a_usage_error(verb, value, capsys):
    from gfbgcn.cli import main

    with pytest.raises(SystemExit) as exit_info:
        main([*verb, "--threads", value])
    assert exit_info.value.code == 2
    assert "--threads" in capsys.readouterr().err

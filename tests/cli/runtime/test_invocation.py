"""What a reproduce verb tells the harness: plain values from its parsed command line."""

from __future__ import annotations

import argparse

import pytest
import torch

from gfbgcn.cli.runtime.invocation import invocation


@pytest.fixture()
def fake_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda device=None: "Fake GPU")


def test_the_invocation_the_harness_logs_is_plain_values(fake_gpu, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    args = argparse.Namespace(command_argv=["reproduce", "graphs", "--data-dir", "/data",
                                            "--workers", "2"], workers=2, device="auto")
    made = invocation(args, torch.device("cuda", 0))
    assert (made.command, made.workers, made.device) == (
        "gfbgcn reproduce graphs --workers 2", 2, "cuda:0 (Fake GPU)")
    assert invocation(argparse.Namespace(), torch.device("cpu")).command == "gfbgcn"

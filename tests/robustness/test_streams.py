"""B. Closed or broken standard streams never lose an output: the model and the run are
written, printing degrades quietly; allocation failures of every kind are the out-of-memory
line; a loss that becomes non-finite stops the run in one line."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

import gfbgcn

from .conftest import FAST, documents, write_csv

#: the gfbgcn these tests import, for the child processes too
SRC = Path(gfbgcn.__file__).resolve().parents[1]


def _train_command(tmp_path: Path, epochs: int = 2) -> list[str]:
    corpus = write_csv(tmp_path / "c.csv", documents())
    fast = [a for a in FAST if a not in ("--quiet",)]  # the progress bar draws
    fast[fast.index("--epochs") + 1] = str(epochs)
    return [sys.executable, "-m", "gfbgcn", "train", "--dataset", str(corpus), *fast,
            "--patience", str(epochs), "--save", str(tmp_path / "m"), "--out",
            str(tmp_path / "r")]


def _env() -> dict[str, str]:
    src = str(SRC)
    return {**os.environ, "PYTHONPATH": os.pathsep.join([src, os.environ.get("PYTHONPATH", "")])}


def _assert_outputs(tmp_path: Path) -> None:
    assert (tmp_path / "m" / "config.json").is_file()
    assert (tmp_path / "r" / "metrics.json").is_file()


@pytest.mark.parametrize("closed", [(0,), (1,), (2,), (0, 1, 2)],
                         ids=["stdin", "stdout", "stderr", "all"])
def test_closed_standard_streams_lose_no_output(tmp_path, closed):
    command = _train_command(tmp_path)

    def close() -> None:  # in the child, before gfbgcn starts: `gfbgcn ... >&-` etc.
        for fd in closed:
            os.close(fd)

    done = subprocess.run(command, env=_env(), preexec_fn=close, timeout=300,
                          stdout=None if 1 in closed else subprocess.PIPE,
                          stderr=None if 2 in closed else subprocess.PIPE)
    err = (done.stderr or b"").decode()
    assert done.returncode == 0, err
    assert "Traceback" not in err and "internal error" not in err, err
    _assert_outputs(tmp_path)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
def test_a_full_stdout_loses_no_model(tmp_path):
    """``gfbgcn train --save m > /dev/full``: printing fails, the model and run are written,
    the lost output is one error line and exit status 2."""
    with open("/dev/full", "w") as full:
        done = subprocess.run(_train_command(tmp_path), env=_env(), stdout=full,
                              stderr=subprocess.PIPE, timeout=300)
    err = done.stderr.decode()
    assert done.returncode == 2, err
    assert "error: writing standard output: No space left on device" in err
    assert "Traceback" not in err and "internal error" not in err, err
    _assert_outputs(tmp_path)


def test_a_broken_stderr_pipe_while_the_progress_bar_draws(tmp_path):
    """Standard error is a pipe whose reader has gone: the first progress-bar line fails."""
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run(_train_command(tmp_path, epochs=20), env=_env(), stderr=write,
                              stdout=subprocess.PIPE, timeout=300)
    finally:
        os.close(write)
    assert done.returncode == 0
    assert "test accuracy" in done.stdout.decode()
    _assert_outputs(tmp_path)


def _numpy_allocation_failure():
    return np.empty(2**62, dtype=np.uint8)  # numpy's _ArrayMemoryError, a MemoryError


def _torch_allocation_failure():
    return torch.empty(2**62, dtype=torch.uint8)  # a RuntimeError from torch's CPU allocator


def _wrapped_allocation_failure():
    try:
        _numpy_allocation_failure()
    except MemoryError as err:  # as a library re-raises it
        raise RuntimeError("worker failed") from err


@pytest.mark.parametrize("fail", [_numpy_allocation_failure, _torch_allocation_failure,
                                  _wrapped_allocation_failure])
def test_every_allocation_failure_is_the_out_of_memory_line(cli, corpus, monkeypatch, fail):
    from gfbgcn.text.train import run

    monkeypatch.setattr(run, "train_full_batch", lambda *a, **k: fail())
    result = cli("train", "--dataset", corpus, *FAST)
    result.assert_user_error("out of memory while training gfb-max", "--batch-size")


def test_a_loss_that_becomes_non_finite_stops_in_one_line(cli, corpus, tmp_path, monkeypatch):
    from gfbgcn.text.train import full_batch

    real = full_batch._epoch_values
    calls = []

    def diverging(*args, **kwargs):
        values = real(*args, **kwargs)
        calls.append(1)
        if len(calls) >= 2:  # epoch 2: the weights blew up
            values["train_loss"] = math.nan
        return values

    monkeypatch.setattr(full_batch, "_epoch_values", diverging)
    result = cli("train", "--dataset", corpus, *FAST, "--out", tmp_path / "r")
    result.assert_user_error("the loss became non-finite at epoch 2", "lower --lr")
    assert not (tmp_path / "r").exists()


def test_predict_from_a_closed_stdin_reads_no_document(saved_model):
    done = subprocess.run([sys.executable, "-m", "gfbgcn", "predict", str(saved_model),
                           "--input", "-"], env=_env(), preexec_fn=lambda: os.close(0),
                          capture_output=True, timeout=300)
    err = done.stderr.decode()
    assert done.returncode in (0, 2), err
    assert "internal error" not in err and "Traceback" not in err, err


@pytest.mark.parametrize("argv", [
    ["reproduce", "graphs", "--lr", "nan"],
    ["reproduce", "graphs", "--lr", "1e308"],
    ["reproduce", "entity", "--select-seeds", "-1"],
    ["reproduce", "entity", "--lambda-inits", "0.5", "inf"],
], ids=lambda a: " ".join(a[1:3]))
def test_reproduction_options_are_checked_when_parsed(cli, tmp_path, argv):
    result = cli(*argv, "--out", tmp_path / "results")
    result.assert_user_error(f"argument {argv[2]}")
    assert not (tmp_path / "results").exists()


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_a_stream_that_cannot_show_a_character_loses_no_result(saved_model, tmp_path,
                                                               encoding):
    """Characters the terminal's encoding cannot show are escaped, with a note; the file the
    same command writes is UTF-8."""
    texts = ["Fußball", "銀行 und Börse"]
    argv = [sys.executable, "-m", "gfbgcn", "predict", str(saved_model)]
    for text in texts:
        argv += ["--text", text]
    env = {**_env(), "PYTHONIOENCODING": encoding}
    done = subprocess.run(argv, env=env, capture_output=True, timeout=300)
    err = done.stderr.decode(encoding)
    assert done.returncode == 0, err
    assert "internal error" not in err and "standard output is in " in err
    out = done.stdout.decode(encoding)
    assert out.count("\n") == 1 + len(texts)  # the header and one row a document
    written = tmp_path / "p.csv"
    done = subprocess.run([*argv, "--output", str(written)], env=env, capture_output=True,
                          timeout=300)
    assert done.returncode == 0 and written.read_text(encoding="utf-8").count("\n") == 3

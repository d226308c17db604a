"""F. Under torchrun one process speaks: what cannot share the work is refused in one line,
and when rank 0 stops on a user error the other ranks end with it, silently and with the same
exit status (two CPU processes, gloo, as ``tests/text/train/test_distributed.py``)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from .conftest import FAST


def _torchrun(*argv: str, cwd) -> subprocess.CompletedProcess:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    return subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node",
         "2", "-m", "gfbgcn", *map(str, argv)],
        env=env, capture_output=True, text=True, timeout=240, cwd=cwd)


def _assert_rank_zero_alone_reports(done: subprocess.CompletedProcess, *fragments: str) -> None:
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, done.stderr[-3000:]  # one line, from rank 0
    for fragment in fragments:
        assert fragment in errors[0], errors[0]
    assert "internal error" not in done.stderr and "Connection closed" not in done.stderr
    # torchrun's summary names every rank's exit status: both ended with rank 0's
    statuses = re.findall(r"^\s*exitcode\s*:\s*(-?\d+)", done.stderr, re.MULTILINE)
    assert statuses == ["2", "2"], done.stderr[-3000:]


@pytest.mark.parametrize(("extra", "fragment"), [
    ([], "torchrun needs --batch-size"),
    (["--batch-size", "4", "--auto"], "--auto does not run under torchrun"),
])
def test_what_cannot_share_the_work_is_refused(corpus, tmp_path, extra, fragment):
    done = _torchrun("train", "--dataset", corpus, *FAST, *extra, "--out", tmp_path / "r",
                     cwd=tmp_path)
    assert done.returncode != 0
    _assert_rank_zero_alone_reports(done, fragment)
    assert "test accuracy" not in done.stdout and not (tmp_path / "r").exists()


def test_a_user_error_on_rank_zero_ends_every_rank_quietly(corpus, tmp_path):
    # rank 0 reads the corpus while the other rank waits for it in a barrier
    done = _torchrun("train", "--dataset", corpus, *FAST, "--batch-size", "4",
                     "--split-col", "nosuch", cwd=tmp_path)
    _assert_rank_zero_alone_reports(done, "no column 'nosuch' (--split-col)")


def test_only_train_runs_under_torchrun(corpus, tmp_path):
    done = _torchrun("data", "stats", "--dataset", corpus, "--min-freq", "1", cwd=tmp_path)
    _assert_rank_zero_alone_reports(done, "gfbgcn data stats does not run under torchrun")
    assert "documents" not in done.stdout


def test_rank_zero_alone_draws_the_figures_and_logs_for_tensorboard(corpus, tmp_path):
    done = _torchrun("train", "--dataset", corpus, *FAST, "--batch-size", "4",
                     "--out", tmp_path / "run", "--tensorboard", tmp_path / "tb", cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert {"curves.png", "confusion.png"} <= {p.name for p in (tmp_path / "run").iterdir()}
    (fit,) = (tmp_path / "tb").iterdir()  # one fit's run, from rank 0
    assert len(list(fit.glob("events.out.tfevents.*"))) == 1
    assert done.stdout.count("tensorboard: logging the epochs to") == 1

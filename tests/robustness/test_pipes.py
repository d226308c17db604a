"""A closed standard output never costs the results."""

from __future__ import annotations

import os
import subprocess
import sys

from .conftest import FAST, documents, write_csv


def test_a_closed_pipe_keeps_out_and_save(tmp_path):
    corpus = write_csv(tmp_path / "c.csv", documents())
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    gfbgcn = [sys.executable, "-m", "gfbgcn"]
    fast = [a for a in FAST if a != "--quiet"]  # printing is the point here
    command = [*gfbgcn, "train", "--dataset", str(corpus), *fast, "--save",
               str(tmp_path / "m"), "--out", str(tmp_path / "r")]
    train = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    first = train.stdout.readline()  # read one line, then close the pipe: `| head -1`
    train.stdout.close()
    err = train.stderr.read().decode()
    status = train.wait(timeout=300)
    assert first
    assert status == 0, err
    assert "Traceback" not in err and "BrokenPipe" not in err, err
    assert (tmp_path / "m" / "config.json").is_file()
    assert (tmp_path / "r" / "metrics.json").is_file()

"""E. Faults of the environment: an optional cache that cannot be written costs nothing but
a warning, and the graph-building processes never outlive the command."""

from __future__ import annotations

import errno
import os

import pytest

from .conftest import FAST

#: FAST without --no-cache: these tests are about the cache.
CACHED = [a for a in FAST if a != "--no-cache"]


def _cache_warnings(err: str) -> list[str]:
    return [line for line in err.splitlines()
            if line.startswith("warning: cannot write the cache")]


def test_a_cache_that_is_not_a_directory_is_skipped_with_one_warning(cli, corpus, tmp_path,
                                                                     monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("GFBGCN_CACHE", str(blocker / "cache"))
    # --auto builds several graphs: still one warning
    result = cli("train", "--dataset", corpus, *CACHED, "--auto", "--budget", "3",
                 "--out", tmp_path / "r")
    assert result.status == 0, result.err
    assert len(_cache_warnings(result.err)) == 1, result.err
    assert "Not a directory" in result.err and "--no-cache" in result.err
    assert (tmp_path / "r" / "metrics.json").is_file()


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS])
def test_a_full_or_read_only_cache_is_skipped(cli, corpus, tmp_path, monkeypatch, code):
    from gfbgcn.text.graph import cache

    def refused(*args, **kwargs):
        raise OSError(code, os.strerror(code))

    monkeypatch.setenv("GFBGCN_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(cache, "savez_converted", refused)
    result = cli("train", "--dataset", corpus, *CACHED, "--save", tmp_path / "m")
    assert result.status == 0, result.err
    (warning,) = _cache_warnings(result.err)
    assert os.strerror(code) in warning
    assert (tmp_path / "m" / "config.json").is_file()
    assert not list((tmp_path / "cache").rglob("*.npz")) + list(
        (tmp_path / "cache").rglob("*.tmp"))  # no partial file left behind


def test_data_build_needs_its_cache(cli, corpus, tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("GFBGCN_CACHE", str(blocker / "cache"))
    cli("data", "build", "--dataset", corpus, "--min-freq", "1").assert_user_error(
        "cannot write the cache", "GFBGCN_CACHE")


# ---- graph-building workers die with the command -------------------------------------------

#: ``data build`` with a tokenizing pass slow enough to be caught running, in many shards.
_SLOW_BUILD = """
import signal, sys, time
# Ctrl-C as a terminal delivers it: a job started in the background by a non-interactive shell
# (as some CI runners do) inherits SIGINT ignored, and then no Ctrl-C reaches anything
signal.signal(signal.SIGINT, signal.default_int_handler)
from gfbgcn.text.graph import sharded
sharded.MIN_SHARD_CHARS = 50  # several shards of the tiny corpus
real = sharded._tokenize_shard
def slow(index):
    time.sleep(60)  # a worker that ignored the signal would still be here when the test looks
    return real(index)
sharded._tokenize_shard = slow
from gfbgcn.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _children(pid: int) -> list[int]:
    """The live child processes of ``pid`` (Linux /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid and fields[0] not in "ZX":
                found.append(int(entry))
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] not in "ZX"
    except OSError:
        return False


def _wait(condition, seconds: float) -> bool:
    import time

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return condition()


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="Linux /proc")
@pytest.mark.parametrize("how", ["SIGKILL", "SIGTERM", "Ctrl-C"])
def test_build_workers_never_outlive_the_command(corpus, tmp_path, how):
    import signal
    import subprocess
    import sys

    command = [sys.executable, "-c", _SLOW_BUILD, "data", "build", "--dataset", str(corpus),
               "--min-freq", "1", "--no-cache", "--build-workers", "2"]
    build = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             start_new_session=True, cwd=tmp_path)
    workers: list[int] = []
    try:
        assert _wait(lambda: len(_children(build.pid)) == 2, 60), "no workers started"
        workers = _children(build.pid)
        if how == "Ctrl-C":  # the terminal signals every process of the command
            os.killpg(build.pid, signal.SIGINT)
        else:
            os.kill(build.pid, getattr(signal, how))
        # 30 s: room for a loaded CI machine; a surviving worker would still be in its 60 s sleep
        assert _wait(lambda: not any(map(_alive, workers)), 30), "a worker outlived it"
        status = build.wait(timeout=30)
        err = build.stderr.read().decode()
    finally:
        if build.poll() is None:
            build.kill()
        for pid in filter(_alive, workers):  # a test that failed: leave nothing running
            os.kill(pid, signal.SIGKILL)
    assert "Traceback" not in err and "BrokenPipe" not in err, err
    if how == "Ctrl-C":
        assert status == 130 and err.strip() == "interrupted", err


def test_a_home_that_does_not_exist_is_never_created(corpus, tmp_path):
    """``HOME=/nonexistent``: the optional graph cache is skipped with a warning, matplotlib's
    directories go to a temporary one, and the home directory stays absent."""
    import subprocess
    import sys
    from pathlib import Path

    import gfbgcn

    home = tmp_path / "no-such-home"
    env = {k: v for k, v in os.environ.items()
           if k not in ("GFBGCN_CACHE", "MPLCONFIGDIR", "XDG_CACHE_HOME", "XDG_CONFIG_HOME")}
    env.update(HOME=str(home), PYTHONPATH=str(Path(gfbgcn.__file__).resolve().parents[1]))
    gfbgcn_cli = [sys.executable, "-m", "gfbgcn"]
    for argv in (["data", "stats", "--dataset", str(corpus), "--min-freq", "1"],
                 ["train", "--dataset", str(corpus), *CACHED, "--save", str(tmp_path / "m")],
                 ["predict", str(tmp_path / "m"), "--text", "goal team"],
                 ["figures", "pooling", "--out", str(tmp_path / "figures")]):
        done = subprocess.run([*gfbgcn_cli, *argv], env=env, capture_output=True, timeout=300)
        assert done.returncode == 0, done.stderr.decode()
        assert not home.exists(), (argv, sorted(str(p) for p in home.rglob("*")))

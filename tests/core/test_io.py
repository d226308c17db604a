"""Atomic writes (no partial file, no temporary left behind) and file hashing."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gfbgcn.core.io import (
    STALE_SECONDS,
    atomic_write,
    atomic_write_bytes,
    atomic_write_json,
    atomic_write_text,
    read_json,
    remove_abandoned,
    sha256_file,
    temporary_prefix,
)


def test_writes_create_parents_and_replace(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "f.txt"
    assert atomic_write_text(path, "one") == path
    assert path.read_text() == "one"
    atomic_write_bytes(path, b"two")
    assert path.read_bytes() == b"two"
    atomic_write_json(path, {"b": 1, "a": [1, 2], "p": Path("x")})
    text = path.read_text()
    assert json.loads(text) == {"a": [1, 2], "b": 1, "p": "x"}  # default=str for paths
    assert text.index('"a"') < text.index('"b"') and text.endswith("\n")  # sorted, newline
    assert [p.name for p in path.parent.iterdir()] == ["f.txt"]


def test_failed_write_keeps_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    path.write_text("old")

    def broken(tmp: Path) -> None:
        tmp.write_text("half")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError, match="disk full"):
        atomic_write(path, broken)
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["f.txt"]


def _dead_pid() -> int:
    child = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                           capture_output=True, text=True, check=True)
    return int(child.stdout)  # exited: no process has it (reuse within the test is unlikely)


def test_a_killed_writes_temporaries_are_removed_by_the_next_write(tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    ours = temporary_prefix(path)  # .f.txt.tmp-HOST-PID.
    host = ours.split(".tmp-", 1)[1].rsplit("-", 1)[0]
    dead = tmp_path / f".f.txt.tmp-{host}-{_dead_pid()}.abcd1234"  # kill -9 mid-write
    live = tmp_path / f".f.txt.tmp-{host}-{os.getppid()}.abcd1234"  # a running process
    remote = tmp_path / ".f.txt.tmp-otherhost-1.abcd1234"  # another machine, recent
    old_remote = tmp_path / ".f.txt.tmp-otherhost-2.abcd1234"  # another machine, long ago
    other_file = tmp_path / f".g.txt.tmp-{host}-{_dead_pid()}.abcd1234"  # not f.txt's
    user_file = tmp_path / ".f.txt.notes"  # not a temporary at all
    for tmp in (dead, live, remote, old_remote, other_file, user_file):
        tmp.write_text("half")
    old = time.time() - STALE_SECONDS - 60
    os.utime(old_remote, (old, old))
    (tmp_path / f".f.txt.tmp-{host}-{_dead_pid()}.dir12345").mkdir()  # a directory's

    atomic_write_text(path, "new")
    left = {p.name for p in tmp_path.iterdir()}
    assert left == {"f.txt", live.name, remote.name, other_file.name, user_file.name}
    assert remove_abandoned(tmp_path) == 1  # the whole folder: g.txt's too
    assert not other_file.exists() and live.exists() and user_file.exists()


def test_sha256_file_reads_in_chunks(tmp_path: Path) -> None:
    data = bytes(range(256)) * 1000
    path = tmp_path / "blob"
    path.write_bytes(data)
    assert sha256_file(path) == hashlib.sha256(data).hexdigest()
    assert sha256_file(path, chunk=7) == hashlib.sha256(data).hexdigest()


def test_read_json_fails_as_a_value_error_naming_the_reason(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_text('[1, {"b": null}]', encoding="utf-8")
    assert read_json(path) == [1, {"b": None}]
    path.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")  # json recurses per level
    with pytest.raises(ValueError, match="^nested too deeply$"):
        read_json(path)
    path.write_bytes(b'{"a": "\xff"}')
    with pytest.raises(ValueError, match="utf-8"):
        read_json(path)
    path.write_text("{", encoding="utf-8")
    with pytest.raises(ValueError, match="Expecting"):
        read_json(path)
    with pytest.raises(OSError):
        read_json(tmp_path / "missing.json")

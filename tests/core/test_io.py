"""Atomic writes (no partial file, no temporary left behind) and file hashing."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from gfbgcn.core.io import (
    atomic_write,
    atomic_write_bytes,
    atomic_write_json,
    atomic_write_text,
    sha256_file,
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


def test_sha256_file_reads_in_chunks(tmp_path: Path) -> None:
    data = bytes(range(256)) * 1000
    path = tmp_path / "blob"
    path.write_bytes(data)
    assert sha256_file(path) == hashlib.sha256(data).hexdigest()
    assert sha256_file(path, chunk=7) == hashlib.sha256(data).hexdigest()

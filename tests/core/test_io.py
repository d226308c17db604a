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
    read_json,
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

"""A cache of every kind, shared by the tests of the cache API of :mod:`gfbgcn.core.paths`."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from gfbgcn.core import paths

HOUR = 3600.0
ENCODER = "a23088665f50ec9fb0e73d954d38748a"


def make_file(path: Path, size: int, age: float = 0.0) -> Path:
    """A file of ``size`` bytes last modified ``age`` seconds ago."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"x" * size)
    when = time.time() - age
    os.utime(path, (when, when))
    return path


def age_folders(top: Path, age: float) -> None:
    """The folders under ``top`` (and ``top``) last modified ``age`` seconds ago."""
    when = time.time() - age
    for folder, _, _ in os.walk(top):
        os.utime(folder, (when, when))


@pytest.fixture()
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache of every kind, a write in progress, a user's folder, and a link to a file
    outside the root."""
    root = tmp_path / "cache"
    monkeypatch.setenv(paths.CACHE_ENV, str(root))
    monkeypatch.delenv(paths.CACHE_MAX_ENV, raising=False)
    make_file(root / "graphs" / "r8-aaa.npz", 1000, age=5 * HOUR)
    make_file(root / "graphs" / "texts-bbb.npz", 300, age=2 * HOUR)
    make_file(root / "graphs" / f".texts-ccc.npz.tmp-host-{os.getpid()}.x1", 50)  # being written
    make_file(root / "embeddings" / ENCODER / "0123abcd.npz", 200, age=3 * HOUR)
    make_file(root / "embeddings" / ENCODER / "4567cdef.npz", 100, age=5 * 60)
    make_file(root / "embeddings" / ENCODER / "identity.json", 10)
    make_file(root / "tu" / "0c2195d497e083cf" / "TOY" / "processed" / "data.pt", 400, age=9 * HOUR)
    age_folders(root / "tu" / "0c2195d497e083cf", 9 * HOUR)
    outside = make_file(tmp_path / "data" / "aifb.nt", 7777)
    (root / "entities" / "aifb" / "raw").mkdir(parents=True)
    (root / "entities" / "aifb" / "raw" / "aifb.nt").symlink_to(outside)
    make_file(root / "mine" / "notes.txt", 5)  # not gfbgcn's
    return root

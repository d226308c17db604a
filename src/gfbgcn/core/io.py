"""Atomic file writes, hashing and the one JSON file reader: results already written are never
left half-overwritten, and a hostile file fails as a plain ``ValueError``."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any


def current_umask() -> int:
    """The process's umask (new files get ``0o666 & ~umask``)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def atomic_write(path: str | os.PathLike[str], writer: Callable[[Path], object]) -> Path:
    """Call ``writer(tmp_path)`` then rename ``tmp_path`` onto ``path`` (same directory)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        writer(tmp_path)
        os.chmod(tmp_path, 0o666 & ~current_umask())  # mkstemp makes 0600; honour the umask
        os.replace(tmp_path, path)
    except BaseException:
        tmp_path.unlink(missing_ok=True)
        raise
    return path


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> Path:
    return atomic_write(path, lambda p: p.write_bytes(data))


def atomic_write_text(path: str | os.PathLike[str], text: str) -> Path:
    return atomic_write(path, lambda p: p.write_text(text, encoding="utf-8"))


def atomic_write_json(path: str | os.PathLike[str], obj: Any) -> Path:
    return atomic_write_text(path, json.dumps(obj, indent=2, sort_keys=True, default=str) + "\n")


def sha256_file(path: str | os.PathLike[str], chunk: int = 1 << 20) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def json_digest(obj: Any) -> str:
    """sha256 of ``obj``'s canonical JSON (sorted keys): the same before writing and after
    reading back, so a file can carry the digest of its own other fields."""
    text = json.dumps(obj, sort_keys=True, ensure_ascii=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def read_json(path: str | os.PathLike[str]) -> Any:
    """The JSON value in file ``path``.

    Raises ``OSError`` where the file cannot be read and ``ValueError`` (the reason in its
    message) where it is not UTF-8, not JSON or nested too deeply: ``json`` recurses once per
    level, so a hostile file could otherwise end in a ``RecursionError``.
    """
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except RecursionError:
        raise ValueError("nested too deeply") from None

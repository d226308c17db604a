"""Atomic file writes, hashing and the one JSON file reader: results already written are never
left half-overwritten, and a hostile file fails as a plain ``ValueError``.

A write in progress lives under a temporary sibling name that says who is writing:
``.NAME.tmp-HOST-PID.XXXXXXXX`` (a directory: :func:`gfbgcn.core.atomic.atomic_directory`).
A process killed mid-write (``kill -9``, a power cut) leaves it behind; the next write in that
folder removes it (:func:`remove_abandoned`) once its writer is known to be gone: a process of
this machine that no longer runs, or anything older than :data:`STALE_SECONDS`.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import socket
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


def current_umask() -> int:
    """The process's umask (new files get ``0o666 & ~umask``)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


#: A temporary whose writer this machine cannot see (another host on a shared disk) counts as
#: abandoned after this long: a live write renames its file within seconds of creating it.
STALE_SECONDS = 3600

#: ``.NAME.tmp-HOST-PID.XXXX``: the name, the host and the process id of its writer.
_TEMPORARY = re.compile(r"\.(.+)\.tmp-([A-Za-z0-9-]*)-(\d+)\.[^.]+")


def _host() -> str:
    return re.sub(r"[^A-Za-z0-9-]", "", socket.gethostname())[:40]


def temporary_prefix(path: Path) -> str:
    """The name prefix of a temporary sibling of ``path`` written by this process."""
    return f".{path.name}.tmp-{_host()}-{os.getpid()}."


def _writer_gone(host: str, pid: int, age: float) -> bool:
    if age > STALE_SECONDS:
        return True
    if host != _host():
        return False  # another machine's write may still be going on
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # another user's process: alive
        return False
    return False


def remove_abandoned(folder: Path, name: str | None = None) -> int:
    """Remove the temporaries that killed writes left in ``folder`` (of ``name`` only, if
    given); returns how many. One that cannot be removed (another user's) is left."""
    removed = 0
    now = time.time()
    pattern = f".{name}.*" if name is not None else ".*"
    try:
        candidates = list(folder.glob(pattern))
    except OSError:
        return 0
    for candidate in candidates:
        match = _TEMPORARY.fullmatch(candidate.name)
        if match is None or (name is not None and match.group(1) != name):
            continue
        try:
            age = now - candidate.lstat().st_mtime
            if not _writer_gone(match.group(2), int(match.group(3)), age):
                continue
            if candidate.is_dir() and not candidate.is_symlink():
                shutil.rmtree(candidate)
            else:
                candidate.unlink()
            removed += 1
        except OSError:  # gone already, or not ours to delete
            continue
    return removed


def atomic_write(path: str | os.PathLike[str], writer: Callable[[Path], object]) -> Path:
    """Call ``writer(tmp_path)`` then rename ``tmp_path`` onto ``path`` (same directory)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_abandoned(path.parent, path.name)
    fd, tmp = tempfile.mkstemp(prefix=temporary_prefix(path), dir=path.parent)
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

"""The cache root and its layout: the kinds, their folders, each entry's size and last use."""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from platformdirs import user_cache_dir

CACHE_ENV = "GFBGCN_CACHE"

#: The folders of each kind of entry, under the cache root.
KIND_FOLDERS: dict[str, tuple[str, ...]] = {
    "graphs": ("graphs",),
    "embeddings": ("embeddings",),
    "other": ("entities", "tu", "tu_s2v"),
}
KINDS: tuple[str, ...] = tuple(KIND_FOLDERS)
#: An encoder's folder under ``embeddings/`` (its identity key: hex digits).
_ENCODER_FOLDER = re.compile(r"[0-9a-f]{8,64}")


def cache_root() -> Path:
    """The cache root (``$GFBGCN_CACHE`` or the user cache dir), not created."""
    env = os.environ.get(CACHE_ENV)
    return Path(env).expanduser() if env else Path(user_cache_dir("gfbgcn")) / "cache"


@dataclass(frozen=True)
class CacheEntry:
    """One removable thing in the cache: ``kind``, ``path``, ``size`` (bytes of its files)
    and ``last_used`` (seconds since the epoch: its newest modification time)."""

    kind: str
    path: Path
    size: int
    last_used: float


def _tree(path: Path) -> tuple[int, float]:
    """``(bytes, newest mtime)`` of ``path`` and, for a real folder, everything under it;
    symbolic links are counted as links, never followed."""
    info = path.lstat()
    size, newest = (info.st_size if not stat.S_ISDIR(info.st_mode) else 0), info.st_mtime
    if stat.S_ISDIR(info.st_mode):
        for top, dirs, files in os.walk(path):  # followlinks=False: links stay names
            for name in dirs + files:
                try:
                    sub = os.lstat(os.path.join(top, name))
                except OSError:  # removed meanwhile
                    continue
                newest = max(newest, sub.st_mtime)
                if not stat.S_ISDIR(sub.st_mode):
                    size += sub.st_size
    return size, newest


def children(folder: Path) -> Iterator[Path]:
    """The visible children of ``folder`` (none where it is missing or unreadable)."""
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return
    for name in names:
        if not name.startswith("."):  # writes in progress, hidden files: never entries
            yield folder / name


def _candidates(root: Path, kind: str) -> Iterator[Path]:
    """The paths of the entries of ``kind`` under ``root``."""
    for folder in KIND_FOLDERS[kind]:
        base = root / folder
        if base.is_symlink():  # a kind folder linked elsewhere is not inside the root
            continue
        if kind == "graphs":
            yield from (p for p in children(base) if p.suffix == ".npz")
        elif kind == "embeddings":
            for encoder in children(base):
                if _ENCODER_FOLDER.fullmatch(encoder.name) and not encoder.is_symlink():
                    yield from (p for p in children(encoder) if p.suffix == ".npz")
        else:
            yield from children(base)


def cache_entries(root: Path | None = None, kinds: Iterable[str] = KINDS) -> list[CacheEntry]:
    """The entries of ``kinds`` under ``root`` (default :func:`cache_root`), oldest use
    first."""
    root = cache_root() if root is None else Path(root)
    found = []
    for kind in kinds:
        for path in _candidates(root, kind):
            try:
                size, last_used = _tree(path)
            except OSError:  # removed since it was listed
                continue
            found.append(CacheEntry(kind, path, size, last_used))
    return sorted(found, key=lambda e: (e.last_used, str(e.path)))


def touch(path: str | os.PathLike[str]) -> None:
    """Mark the entry at ``path`` used now (its modification time); a cache that cannot be
    written is left as it is."""
    try:
        os.utime(path)
    except OSError:
        pass

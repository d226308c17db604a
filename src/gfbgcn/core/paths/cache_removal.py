"""Removing entries: by hand (:func:`clear_cache`) and past the size cap, least recently used
first (:func:`evict_over_cap`), inside the cache root only (see :mod:`gfbgcn.core.paths`)."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from gfbgcn.core.errors import OptionError
from gfbgcn.core.io import remove_abandoned
from gfbgcn.core.paths.cache_layout import (
    KIND_FOLDERS,
    KINDS,
    CacheEntry,
    cache_entries,
    cache_root,
    children,
)
from gfbgcn.core.paths.cache_sizes import cache_cap, parse_duration

#: Entries used (written or read) this recently are never evicted: a command that reads its
#: entry again by path (torchrun ranks, spawned reproduction workers) does so within seconds
#: to minutes of writing or reading it, and so need not rebuild it.
EVICT_GRACE_SECONDS = 600.0
#: The kinds :func:`evict_over_cap` removes: checked on every read, rebuilt when missing.
EVICTED_KINDS: tuple[str, ...] = ("graphs", "embeddings")


def _inside(root: Path, path: Path) -> bool:
    """Whether ``path``'s folder lies inside ``root`` once links are resolved (the entry itself
    is not resolved: a link is removed as a link)."""
    try:
        path.parent.resolve().relative_to(root.resolve())
    except (OSError, ValueError):
        return False
    return True


def remove_entry(root: Path, entry: CacheEntry) -> bool:
    """Remove ``entry`` (a file or link unlinked, a real folder removed whole); ``True`` when it
    is gone, also where another process removed it first.  ``False`` where it lies outside
    ``root`` or cannot be removed (permissions; on Windows, open elsewhere)."""
    path = entry.path
    if not _inside(root, path):
        return False
    try:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return True


@dataclass(frozen=True)
class ClearResult:
    """What :func:`clear_cache` removed and what it could not."""

    removed: list[CacheEntry]
    failed: list[CacheEntry]

    @property
    def bytes(self) -> int:
        return sum(e.size for e in self.removed)


def clear_cache(kinds: Iterable[str] = KINDS, older_than: float | str | None = None,
                root: Path | None = None) -> ClearResult:
    """Remove the entries of ``kinds`` (``graphs``, ``embeddings``, ``other``) from the cache
    at ``root`` (default :func:`cache_root`), only those last used more than ``older_than``
    ago when given (seconds, or a duration such as ``"7d"``: :func:`parse_duration`).  Writes
    in progress are left; those whose writer is gone are removed.  Nothing outside the kinds'
    folders is touched."""
    kinds = tuple(kinds)
    for kind in kinds:
        if kind not in KINDS:
            raise OptionError("{0} must be among {kinds}, got {value!r}", "kinds",
                              kinds=", ".join(KINDS), value=kind)
    age = parse_duration(older_than) if isinstance(older_than, str) else older_than
    root = cache_root() if root is None else Path(root)
    now = time.time()
    removed: list[CacheEntry] = []
    failed: list[CacheEntry] = []
    for entry in cache_entries(root, kinds):
        if age is not None and now - entry.last_used < age:
            continue
        (removed if remove_entry(root, entry) else failed).append(entry)
    for kind in kinds:
        _tidy(root, kind)
    return ClearResult(removed, failed)


def _tidy(root: Path, kind: str) -> None:
    """Remove what killed writes left in ``kind``'s folders, and the encoder folders that no
    longer hold a shard (their ``identity.json`` alone)."""
    for folder in KIND_FOLDERS[kind]:
        base = root / folder
        if not base.is_dir() or base.is_symlink():
            continue
        remove_abandoned(base)
        if kind != "embeddings":
            continue
        for encoder in children(base):
            if encoder.is_symlink() or not encoder.is_dir():
                continue
            remove_abandoned(encoder)
            try:
                if set(os.listdir(encoder)) <= {"identity.json"}:
                    shutil.rmtree(encoder)
            except OSError:
                continue


def evict_over_cap(keep: Path | None = None, root: Path | None = None,
                   now: float | None = None) -> list[CacheEntry]:
    """Remove the least recently used graphs and shards until the cache at ``root`` (default
    :func:`cache_root`) is within :func:`cache_cap`; never ``keep`` (the entry just written),
    an entry used in the last :data:`EVICT_GRACE_SECONDS`, or an ``other`` entry (see
    :mod:`gfbgcn.core.paths`).  Returns what was removed."""
    cap = cache_cap()
    if cap is None:
        return []
    root = cache_root() if root is None else Path(root)
    now = time.time() if now is None else now
    entries = cache_entries(root)
    total = sum(e.size for e in entries)
    removed: list[CacheEntry] = []
    for entry in entries:  # oldest use first
        if total <= cap:
            break
        if (entry.kind not in EVICTED_KINDS or entry.path == keep
                or now - entry.last_used < EVICT_GRACE_SECONDS):
            continue
        if remove_entry(root, entry):
            total -= entry.size
            removed.append(entry)
    return removed

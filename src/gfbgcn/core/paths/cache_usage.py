"""What the cache holds: entries and bytes per kind, the cap, what else lies under the root."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from gfbgcn.core.paths.cache_layout import KIND_FOLDERS, KINDS, cache_entries, cache_root, children
from gfbgcn.core.paths.cache_sizes import cache_cap


@dataclass(frozen=True)
class KindUsage:
    """The entries of one kind: how many, and their bytes."""

    entries: int
    bytes: int


@dataclass(frozen=True)
class CacheInfo:
    """What :func:`cache_info` found: the ``root`` (and whether it ``exists``), the ``cap``
    (bytes; ``None``: none), the usage of each kind, and the names under the root that are not
    gfbgcn's (``unknown``: never removed)."""

    root: Path
    exists: bool
    cap: int | None
    kinds: dict[str, KindUsage]
    unknown: list[str] = field(default_factory=list)

    @property
    def total(self) -> KindUsage:
        return KindUsage(sum(k.entries for k in self.kinds.values()),
                         sum(k.bytes for k in self.kinds.values()))

    def to_dict(self) -> dict[str, object]:
        return {"root": str(self.root), "exists": self.exists, "cap_bytes": self.cap,
                "kinds": {name: {"entries": k.entries, "bytes": k.bytes}
                          for name, k in self.kinds.items()},
                "total": {"entries": self.total.entries, "bytes": self.total.bytes},
                "unknown": self.unknown}


def cache_info(root: Path | None = None) -> CacheInfo:
    """The cache at ``root`` (default :func:`cache_root`): entries and bytes per kind, the cap
    (``$GFBGCN_CACHE_MAX``; a bad value is a :class:`~gfbgcn.core.errors.UserError`), and what
    else lies under the root."""
    root = cache_root() if root is None else Path(root)
    entries = cache_entries(root)
    kinds = {kind: KindUsage(sum(1 for e in entries if e.kind == kind),
                             sum(e.size for e in entries if e.kind == kind)) for kind in KINDS}
    ours = {folder for folders in KIND_FOLDERS.values() for folder in folders}
    unknown = [p.name for p in children(root) if p.name not in ours]
    return CacheInfo(root, root.is_dir(), cache_cap(), kinds, unknown)

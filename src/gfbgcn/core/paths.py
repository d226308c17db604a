"""Where data and caches live.

The data root is resolved as: explicit ``--data-dir`` flag > ``GFBGCN_DATA`` environment
variable > the user cache directory (``platformdirs.user_cache_dir("gfbgcn")/data``).
Built artifacts (text graphs, PyG ``processed/`` folders) go to :func:`cache_dir`, never into
the data root, which may be read-only.
"""

from __future__ import annotations

import os
from pathlib import Path

from platformdirs import user_cache_dir

DATA_ENV = "GFBGCN_DATA"
CACHE_ENV = "GFBGCN_CACHE"


def data_root(flag: str | os.PathLike[str] | None = None) -> Path:
    """The benchmark data root: ``flag`` > ``$GFBGCN_DATA`` > user cache dir."""
    if flag:
        return Path(flag).expanduser()
    env = os.environ.get(DATA_ENV)
    if env:
        return Path(env).expanduser()
    return Path(user_cache_dir("gfbgcn")) / "data"


def cache_dir(sub: str = "") -> Path:
    """A writable cache directory (``$GFBGCN_CACHE`` or the user cache dir), created on demand."""
    env = os.environ.get(CACHE_ENV)
    root = Path(env).expanduser() if env else Path(user_cache_dir("gfbgcn")) / "cache"
    path = root / sub if sub else root
    path.mkdir(parents=True, exist_ok=True)
    return path

"""Where data and caches live.

The data root is resolved as: explicit ``--data-dir`` flag > ``GFBGCN_DATA`` environment
variable > the user cache directory (``platformdirs.user_cache_dir("gfbgcn")/data``).
Built artifacts (text graphs, PyG ``processed/`` folders) go to :func:`cache_dir`, never into
the data root, which may be read-only.

The text-graph cache is optional: a cache directory that cannot be written (read-only, full,
not a directory) costs a rebuild next time, not the command.  :func:`write_to_cache` warns
once and lets the command go on uncached, except inside :func:`cache_required` (``gfbgcn data
build``, whose whole point is the cache), where it is a one-line error.

A ``HOME`` that does not exist (a service account, a container run with ``HOME=/nonexistent``)
is never created: a default directory under it counts as one that cannot be written.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import tempfile
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

from platformdirs import user_cache_dir

from gfbgcn.core.errors import ParameterWarning, UserError

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


def missing_home(path: Path) -> Path | None:
    """``$HOME`` when it does not exist and ``path`` lies under it (creating ``path`` would
    create the home directory), else ``None``."""
    home = os.environ.get("HOME")
    if not home or Path(home).is_dir():
        return None
    try:
        Path(path).absolute().relative_to(Path(home).absolute())
    except ValueError:
        return None
    return Path(home)


def keep_missing_home_absent() -> None:
    """Where ``$HOME`` does not exist, point the libraries that would create their own
    directories under it (matplotlib's configuration and font cache) at a temporary
    directory, removed at exit: a command never creates the home directory."""
    home = os.environ.get("HOME")
    if not home or Path(home).is_dir() or "MPLCONFIGDIR" in os.environ:
        return
    scratch = tempfile.mkdtemp(prefix="gfbgcn-matplotlib-")
    os.environ["MPLCONFIGDIR"] = scratch
    atexit.register(shutil.rmtree, scratch, True)


def cache_dir(sub: str = "", *, create: bool = True) -> Path:
    """The cache directory (``$GFBGCN_CACHE`` or the user cache dir), created on demand unless
    ``create`` is false (an optional cache: see :func:`write_to_cache`)."""
    env = os.environ.get(CACHE_ENV)
    root = Path(env).expanduser() if env else Path(user_cache_dir("gfbgcn")) / "cache"
    path = root / sub if sub else root
    if create:
        home = missing_home(path)
        if home is not None:
            raise UserError(f"cannot create the cache {path}: HOME ({home}) does not exist; "
                            f"set {CACHE_ENV} to a writable directory")
        path.mkdir(parents=True, exist_ok=True)
    return path


class CacheWarning(ParameterWarning):
    """The cache cannot be written; the command goes on without it."""


_WARNED: set[Path] = set()  # cache directories already warned about in this process
_REQUIRED: list[bool] = []  # inside cache_required()


@contextlib.contextmanager
def cache_required() -> Iterator[None]:
    """Within the block, a cache that cannot be written is an error, not a warning."""
    _REQUIRED.append(True)
    try:
        yield
    finally:
        _REQUIRED.pop()


def write_to_cache(write: Callable[[], object], path: Path) -> bool:
    """``write()`` (which writes ``path``, in a cache directory, creating it); ``False`` when
    the cache cannot be written: warned once per directory, or an error in
    :func:`cache_required`."""
    try:
        home = missing_home(path)
        if home is not None:  # never create a home directory that is not there
            raise FileNotFoundError(0, f"HOME {home} does not exist")
        path.parent.mkdir(parents=True, exist_ok=True)
        write()
        return True
    except OSError as err:
        reason = f"cannot write the cache {path.parent} ({err.strerror or err})"
        if _REQUIRED:
            raise UserError(f"{reason}; set {CACHE_ENV} to a writable directory") from None
        if path.parent not in _WARNED:
            _WARNED.add(path.parent)
            warnings.warn(CacheWarning("{reason}; going on without it (set {env} to a writable "
                                       "directory, or turn the cache off: {0})", "cache",
                                       reason=reason, env=CACHE_ENV), stacklevel=2)
        return False

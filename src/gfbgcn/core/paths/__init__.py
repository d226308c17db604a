"""Where data and caches live (this module), and what a path may be: an input
(:mod:`~gfbgcn.core.paths.inputs`) or an output (:mod:`~gfbgcn.core.paths.outputs`).

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

**The cache's contents** (:func:`cache_info`, :func:`clear_cache`, :func:`evict_over_cap`,
defined in this package's ``cache_*`` modules; ``gfbgcn cache info|clear`` on the command
line).  The cache root (:func:`cache_root`) holds three kinds of entries, each in folders of
its own:

* ``graphs``: ``graphs/<corpus>-<key>.npz``, one text graph a file
  (:mod:`gfbgcn.text.graph.cache`), written by ``fit``, ``gfbgcn train``, ``data build``;
* ``embeddings``: ``embeddings/<encoder key>/<digest>.npz``, one shard of document embeddings
  a file (:mod:`gfbgcn.text.encoder.cache`; ``identity.json`` beside them describes the
  encoder);
* ``other``: the PyTorch Geometric dataset folders of the reproductions, each child of
  ``tu/``, ``tu_s2v/`` and ``entities/`` one entry.

Nothing else under the root is gfbgcn's: :func:`cache_info` counts it as ``unknown`` and
nothing here ever removes it.  Names starting with a dot are writes in progress
(``.NAME.tmp-HOST-PID.XXXX``, :mod:`gfbgcn.core.io`) and never entries.

**Last use.**  An entry's last use is its modification time: a write sets it, and a read of a
graph or of a shard sets it again (:func:`touch`), so that least recently *used* means what it
says even where the file system does not keep access times.

**The size cap.**  Each time a graph or a shard is written (:func:`write_to_cache`),
:func:`evict_over_cap` removes the least recently used graphs and shards
until the whole cache is within the cap, ``$GFBGCN_CACHE_MAX`` (:func:`parse_size`: ``8G``,
``500M``, ``none`` for no cap), by default :data:`DEFAULT_CACHE_MAX`.  Entries used in the
last :data:`EVICT_GRACE_SECONDS` (10 minutes) are never evicted (so the cap may be exceeded by
what those minutes used), nor is the entry just written.  ``other`` entries count towards the
cap but are only removed by :func:`clear_cache`: PyG reads its processed files without checking
them, so a folder removed under a running reproduction could fail it, while graphs and shards
are checked on every read and rebuilt when missing or invalid.

**Races with other processes.**  An entry is removed by unlinking its file.  A process that
has the file open or mapped keeps reading the same bytes until it closes it (POSIX: the data
live as long as a handle does), so a read in progress finishes unharmed.  A process that looks
the entry up afterwards finds no file and rebuilds: a vanished graph is a cache miss
(:func:`gfbgcn.text.graph.text_graph.build_text_graph`), a vanished shard's documents are
embedded again, a reproduction worker that loads the graph by path builds it again.  The grace
period covers the by-path re-reads of one command (torchrun ranks, spawned workers) so they
need not rebuild.  Writes in progress are temporaries, never entries.  Two processes evicting
at once: a removal that finds the file gone counts as done.  Where a file cannot be removed
(another user's; on Windows, open elsewhere) it is skipped.

**Only the cache root.**  Entries are found under the kind folders without following symbolic
links; a link is removed as a link (its target is never touched), a folder is removed with
``shutil.rmtree`` (which does not follow links inside it), and each removal first checks that
the entry's folder lies inside the root.
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
from gfbgcn.core.paths.cache_layout import (
    CACHE_ENV,
    KIND_FOLDERS,
    KINDS,
    CacheEntry,
    cache_entries,
    cache_root,
    touch,
)
from gfbgcn.core.paths.cache_removal import (
    EVICT_GRACE_SECONDS,
    EVICTED_KINDS,
    ClearResult,
    clear_cache,
    evict_over_cap,
    remove_entry,
)
from gfbgcn.core.paths.cache_sizes import (
    CACHE_MAX_ENV,
    DEFAULT_CACHE_MAX,
    cache_cap,
    format_size,
    parse_duration,
    parse_size,
)
from gfbgcn.core.paths.cache_usage import CacheInfo, KindUsage, cache_info

DATA_ENV = "GFBGCN_DATA"
__all__ = [  # the paths, and the cache's API (defined in this package's cache_* modules)
    "CACHE_ENV", "CACHE_MAX_ENV", "DATA_ENV", "DEFAULT_CACHE_MAX", "EVICTED_KINDS",
    "EVICT_GRACE_SECONDS", "KINDS", "KIND_FOLDERS", "CacheEntry", "CacheInfo", "CacheWarning",
    "ClearResult", "KindUsage", "cache_cap", "cache_dir", "cache_entries", "cache_info",
    "cache_required", "cache_root", "clear_cache", "data_root", "evict_over_cap", "format_size",
    "keep_missing_home_absent", "missing_home", "parse_duration", "parse_size", "remove_entry",
    "touch", "write_to_cache"]


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
    root = cache_root()
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
_WARNED_CAP: set[str] = set()  # bad $GFBGCN_CACHE_MAX values already warned about
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
    """``write()`` (which writes ``path``, in a cache directory, creating it), then the cache's
    least recently used graphs and embeddings evicted past its size cap
    (:func:`evict_over_cap`; never ``path`` itself); ``False`` when the cache
    cannot be written: warned once per directory, or an error in :func:`cache_required`."""
    try:
        home = missing_home(path)
        if home is not None:  # never create a home directory that is not there
            raise FileNotFoundError(0, f"HOME {home} does not exist")
        path.parent.mkdir(parents=True, exist_ok=True)
        write()
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
    _evict(path)
    return True


def _evict(written: Path) -> None:
    """The cap enforced after a write; a bad ``$GFBGCN_CACHE_MAX`` is warned about once (the
    command line refuses it before any work) and the cache left as it is."""
    try:
        evict_over_cap(keep=written)
    except UserError as err:
        if str(err) not in _WARNED_CAP:
            _WARNED_CAP.add(str(err))
            warnings.warn(CacheWarning("{reason}; the cache is not trimmed", reason=str(err)),
                          stacklevel=3)

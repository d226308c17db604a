"""Sizes and durations as people write them (``8G``, ``7d``), and the cache's size cap."""

from __future__ import annotations

import os
import re

from gfbgcn.core.errors import OptionError, UserError

CACHE_MAX_ENV = "GFBGCN_CACHE_MAX"

#: The default cap.  The four benchmark graphs take about 0.4 GiB, the graph of a corpus of
#: 383k documents about 2.3 GiB and of 1M documents 6 GiB (docs/scale.md), the embeddings of
#: 383k documents 0.6 GiB: 8 GiB keeps a large corpus's graph and embeddings with the
#: benchmarks' (a cross-validation's folds, a grid's settings) and is little on today's disks.
#: An entry larger than the cap stays (the one just written is never evicted); it only pushes
#: the others out.
DEFAULT_CACHE_MAX = 8 * 2**30

_UNITS = {"": 1, "b": 1, "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40}
_SIZE = re.compile(r"(\d+(?:\.\d*)?|\.\d+)\s*([kmgt]?)(?:i?b)?", re.I)
_DURATION = re.compile(r"(\d+(?:\.\d*)?|\.\d+)\s*([smhdw])", re.I)
_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
NO_CAP = ("none", "off", "unlimited")


def parse_size(text: str, name: str = CACHE_MAX_ENV) -> int | None:
    """Bytes of a size as written: ``8G``, ``8GiB``, ``1.5g``, ``500M``, ``2048`` (bytes);
    K, M, G, T are powers of 1024.  ``none``, ``off`` or ``unlimited``: ``None``, no cap.
    Anything else, or 0, is an :class:`OptionError` naming ``name``."""
    word = text.strip()
    if word.lower() in NO_CAP:
        return None
    match = _SIZE.fullmatch(word)
    value = float(match.group(1)) * _UNITS[match.group(2).lower()] if match else 0.0
    if not match or value < 1:
        raise OptionError("{0} must be a size such as 8G, 500M or 2048 (bytes), or none, got "
                          "{value!r}", name, value=text)
    return int(value)


def parse_duration(text: str, name: str = "older_than") -> float:
    """Seconds of a duration as written: ``30s``, ``15m``, ``12h``, ``7d``, ``2w``; anything
    else is an :class:`OptionError` naming ``name``."""
    match = _DURATION.fullmatch(text.strip())
    if not match:
        raise OptionError("{0} must be a duration such as 30s, 15m, 12h, 7d or 2w, got "
                          "{value!r}", name, value=text)
    return float(match.group(1)) * _SECONDS[match.group(2).lower()]


def cache_cap() -> int | None:
    """The cap in bytes: ``$GFBGCN_CACHE_MAX`` (:func:`parse_size`) or
    :data:`DEFAULT_CACHE_MAX`; ``None`` for no cap.  A value that is not a size is a
    :class:`~gfbgcn.core.errors.UserError` naming the variable."""
    env = os.environ.get(CACHE_MAX_ENV)
    if env is None or not env.strip():
        return DEFAULT_CACHE_MAX
    try:
        return parse_size(env)
    except OptionError as err:
        raise UserError(f"environment variable {err}") from None


def format_size(size: float) -> str:
    """``1.5 GiB``, ``277.3 MiB``, ``12 B``."""
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    raise AssertionError("unreachable")

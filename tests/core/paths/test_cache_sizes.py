"""Sizes and durations as written, and the cap from ``$GFBGCN_CACHE_MAX``."""

from __future__ import annotations

import pytest

from gfbgcn.core import paths
from gfbgcn.core.errors import OptionError, UserError


def test_sizes_and_durations_as_written(monkeypatch) -> None:
    assert paths.parse_size("8G") == paths.parse_size("8GiB") == 8 * 2**30
    assert paths.parse_size("1.5g") == int(1.5 * 2**30)
    assert paths.parse_size("500M") == 500 * 2**20 and paths.parse_size("2048") == 2048
    assert paths.parse_size("none") is None and paths.parse_size(" Unlimited ") is None
    for bad in ("", "0", "8X", "-1G", "G", "1e9"):
        with pytest.raises(OptionError, match="GFBGCN_CACHE_MAX must be a size"):
            paths.parse_size(bad)
    assert paths.parse_duration("7d") == 7 * 86400 and paths.parse_duration("90s") == 90
    assert paths.parse_duration("1.5h") == 5400 and paths.parse_duration("2w") == 14 * 86400
    for bad in ("7", "7y", "-1d", "d"):
        with pytest.raises(OptionError, match="older_than must be a duration"):
            paths.parse_duration(bad)
    monkeypatch.setenv(paths.CACHE_MAX_ENV, "3M")
    assert paths.cache_cap() == 3 * 2**20
    monkeypatch.setenv(paths.CACHE_MAX_ENV, "lots")
    with pytest.raises(UserError, match="^environment variable GFBGCN_CACHE_MAX must be"):
        paths.cache_cap()
    assert paths.format_size(1536) == "1.5 KiB" and paths.format_size(12) == "12 B"

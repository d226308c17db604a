"""The data root (flag > $GFBGCN_DATA > user cache dir) and the writable cache directory."""

from __future__ import annotations

from pathlib import Path

import pytest

from gfbgcn.core import paths


def test_data_root_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(paths.DATA_ENV, str(tmp_path / "env"))
    assert paths.data_root(tmp_path / "flag") == tmp_path / "flag"
    assert paths.data_root(None) == tmp_path / "env"
    assert paths.data_root("") == tmp_path / "env"  # an empty flag is no flag
    monkeypatch.delenv(paths.DATA_ENV)
    monkeypatch.setattr(paths, "user_cache_dir", lambda app: str(tmp_path / "user" / app))
    assert paths.data_root(None) == tmp_path / "user" / "gfbgcn" / "data"


def test_data_root_expands_the_home_directory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/someone")
    assert paths.data_root("~/data") == Path("/home/someone/data")


def test_cache_dir_is_created_on_demand(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(paths.CACHE_ENV, str(tmp_path / "cache"))
    sub = paths.cache_dir("graphs")
    assert sub == tmp_path / "cache" / "graphs" and sub.is_dir()
    assert paths.cache_dir() == tmp_path / "cache"
    monkeypatch.delenv(paths.CACHE_ENV)
    from gfbgcn.core.paths import cache_layout  # where the cache root is resolved

    monkeypatch.setattr(cache_layout, "user_cache_dir", lambda app: str(tmp_path / "user" / app))
    assert paths.cache_dir("x") == tmp_path / "user" / "gfbgcn" / "cache" / "x"

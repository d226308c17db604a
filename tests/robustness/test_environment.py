"""E. Faults of the environment: an optional cache that cannot be written costs nothing but
a warning, and the graph-building processes never outlive the command."""

from __future__ import annotations

import errno
import os

import pytest

from .conftest import FAST

#: FAST without --no-cache: these tests are about the cache.
CACHED = [a for a in FAST if a != "--no-cache"]


def _cache_warnings(err: str) -> list[str]:
    return [line for line in err.splitlines()
            if line.startswith("warning: cannot write the cache")]


def test_a_cache_that_is_not_a_directory_is_skipped_with_one_warning(cli, corpus, tmp_path,
                                                                     monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("GFBGCN_CACHE", str(blocker / "cache"))
    # --auto builds several graphs: still one warning
    result = cli("train", "--dataset", corpus, *CACHED, "--auto", "--budget", "3",
                 "--out", tmp_path / "r")
    assert result.status == 0, result.err
    assert len(_cache_warnings(result.err)) == 1, result.err
    assert "Not a directory" in result.err and "--no-cache" in result.err
    assert (tmp_path / "r" / "metrics.json").is_file()


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS])
def test_a_full_or_read_only_cache_is_skipped(cli, corpus, tmp_path, monkeypatch, code):
    from gfbgcn.text.graph import text_graph

    def refused(*args, **kwargs):
        raise OSError(code, os.strerror(code))

    monkeypatch.setenv("GFBGCN_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(text_graph, "savez_converted", refused)
    result = cli("train", "--dataset", corpus, *CACHED, "--save", tmp_path / "m")
    assert result.status == 0, result.err
    (warning,) = _cache_warnings(result.err)
    assert os.strerror(code) in warning
    assert (tmp_path / "m" / "config.json").is_file()
    assert not list((tmp_path / "cache").rglob("*.npz")) + list(
        (tmp_path / "cache").rglob("*.tmp"))  # no partial file left behind


def test_data_build_needs_its_cache(cli, corpus, tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("GFBGCN_CACHE", str(blocker / "cache"))
    cli("data", "build", "--dataset", corpus, "--min-freq", "1").assert_user_error(
        "cannot write the cache", "GFBGCN_CACHE")

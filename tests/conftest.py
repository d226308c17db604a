"""Shared fixtures.

Tests that read the real benchmark data ask for the ``data_dir`` fixture.  Where the data root
(``$GFBGCN_DATA``) is absent they are skipped with the reason, except when
``GFBGCN_REQUIRE_DATA=1`` (set by ``.ci/run``), where a missing data root is a failure.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gfbgcn.core.paths import data_root


@pytest.fixture(scope="session")
def data_dir() -> Path:
    root = data_root(None)
    if not (root / "text").is_dir():
        message = f"benchmark data not found under {root} (set GFBGCN_DATA)"
        if os.environ.get("GFBGCN_REQUIRE_DATA") == "1":
            pytest.fail(message + "; GFBGCN_REQUIRE_DATA=1 forbids skipping", pytrace=False)
        pytest.skip(message)
    return root


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """Every test writes caches under a temp dir unless GFBGCN_CACHE is set explicitly."""
    if "GFBGCN_CACHE" not in os.environ:
        monkeypatch.setenv("GFBGCN_CACHE", str(tmp_path_factory.getbasetemp() / "cache"))

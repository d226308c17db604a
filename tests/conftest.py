"""Shared fixtures.

Tests that read the real benchmark data ask for the ``data_dir`` fixture.  Where the data root
(``$GFBGCN_DATA``) is absent they are skipped with the reason, except when
``GFBGCN_REQUIRE_DATA=1`` (set by ``.ci/run``), where a missing data root is a failure.

Tests not marked ``gpu`` see no CUDA device, so ``--device auto`` (the default) means the CPU in
them on every machine and their exact expectations hold there too; ``gpu`` tests
(tests/test_gpu.py) see the real devices.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
import torch

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


_REAL_CUDA_IS_AVAILABLE = torch.cuda.is_available
_SEE_CUDA = [False]  # True only while a test marked ``gpu`` runs


def _cuda_is_available() -> bool:
    return _SEE_CUDA[0] and _REAL_CUDA_IS_AVAILABLE()


@pytest.fixture(scope="session", autouse=True)
def _hide_cuda() -> Iterator[None]:
    """Session-wide (so that module-scoped fixtures see it too): see the module docstring."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(torch.cuda, "is_available", _cuda_is_available)
        yield


@pytest.fixture(autouse=True)
def _gpu_tests_see_cuda(request: pytest.FixtureRequest) -> Iterator[None]:
    see = request.node.get_closest_marker("gpu") is not None
    _SEE_CUDA[0] = see
    yield
    _SEE_CUDA[0] = False


@pytest.fixture()
def no_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    """torch sees no CUDA GPU (device tests of core and the command line)."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)


@pytest.fixture()
def two_gpus(monkeypatch: pytest.MonkeyPatch) -> None:
    """torch sees two CUDA GPUs named "Fake GPU" (nothing runs on them)."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda device=None: "Fake GPU")

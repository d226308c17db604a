"""Fixtures of the encoder tests: a tiny random BERT in both layouts, built once a session,
and no model hub ever reached."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.text.encoder.tinybert import write_plain


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing is fetched from a model hub, whatever a test asks."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture(scope="session")
def plain_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A transformers directory of the tiny BERT (read-only by convention: copy to change)."""
    pytest.importorskip("transformers")  # the encoders extra (`make test` installs it)
    return write_plain(tmp_path_factory.mktemp("encoders") / "plain")


@pytest.fixture()
def copy_of(tmp_path: Path) -> Callable[[Path], Path]:
    """A fresh copy of an encoder directory, to change."""
    def copy(source: Path) -> Path:
        return Path(shutil.copytree(source, Path(tempfile.mkdtemp(dir=tmp_path)) / source.name))

    return copy

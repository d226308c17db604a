"""Optional dependencies: a missing extra is one line that names the ``pip install`` to run."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from gfbgcn.cli import main
from gfbgcn.cli.runtime import failures
from gfbgcn.core import errors
from gfbgcn.core.extras import MissingExtraError, install_hint, require


def _block(monkeypatch: pytest.MonkeyPatch, *names: str) -> None:
    """Make ``import name`` fail as if the package were not installed."""
    for name in names:
        for loaded in [m for m in sys.modules if m.startswith(name + ".")]:
            monkeypatch.delitem(sys.modules, loaded)
        monkeypatch.setitem(sys.modules, name, None)


def test_require_returns_the_module() -> None:
    assert require("json", "x", "y") is json
    assert require("importlib.util", "x", "y") is sys.modules["importlib.util"]


def test_missing_module_is_a_one_line_user_error(monkeypatch: pytest.MonkeyPatch) -> None:
    _block(monkeypatch, "rdflib")
    with pytest.raises(MissingExtraError) as caught:
        require("rdflib", "entity", "gfbgcn reproduce entity")
    message = str(caught.value)
    assert message == "gfbgcn reproduce entity needs rdflib: pip install 'gfbgcn[entity]'"
    assert "\n" not in message
    assert isinstance(caught.value, errors.UserError)
    assert failures.exit_status(caught.value) == failures.USER_ERROR
    assert failures.describe(caught.value) == message


def test_missing_parent_package_names_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    _block(monkeypatch, "matplotlib")
    with pytest.raises(MissingExtraError, match=r"^p needs matplotlib: pip install "
                                                r"'gfbgcn\[figures\]'$"):
        require("matplotlib.pyplot", "figures", "p")


def test_a_broken_dependency_of_an_installed_package_is_not_masked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "gfbgcn_fake_extra.py").write_text("import gfbgcn_fake_missing_dependency\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "gfbgcn_fake_extra", raising=False)
    with pytest.raises(ModuleNotFoundError) as caught:
        require("gfbgcn_fake_extra", "x", "y")
    assert not isinstance(caught.value, MissingExtraError)
    assert caught.value.name == "gfbgcn_fake_missing_dependency"


def test_install_hint() -> None:
    assert install_hint("all") == "pip install 'gfbgcn[all]'"


def test_figures_verb_without_matplotlib(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _block(monkeypatch, "matplotlib")
    assert main(["figures", "pooling", "--out", str(tmp_path)]) == failures.USER_ERROR
    err = capsys.readouterr().err
    assert err == ("error: gfbgcn figures pooling needs matplotlib: "
                   "pip install 'gfbgcn[figures]'\n")
    assert not list(tmp_path.iterdir())


def test_entity_verb_without_rdflib(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _block(monkeypatch, "rdflib")
    argv = ["reproduce", "entity", "--data-dir", str(tmp_path), "--datasets", "aifb",
            "--offline", "--out", str(tmp_path / "results")]
    assert main(argv) == failures.USER_ERROR
    err = capsys.readouterr().err
    assert err == "error: gfbgcn reproduce entity needs rdflib: pip install 'gfbgcn[entity]'\n"


def test_reproduce_text_without_matplotlib_fails_before_any_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Its report draws a figure after each saved run: the missing extra must stop the command
    before the first (possibly hours-long) run, not after it."""
    import gfbgcn.reproduce.text.grid as text_grid

    def no_run(*args, **kwargs):  # noqa: ANN002, ANN003
        raise AssertionError("a run started without matplotlib")

    monkeypatch.setattr(text_grid, "run_text_grid", no_run)
    _block(monkeypatch, "matplotlib")
    argv = ["reproduce", "text", "--datasets", "r8", "--models", "gcn", "--seeds", "1",
            "--out", str(tmp_path / "results"), "--device", "cpu"]
    assert main(argv) == failures.USER_ERROR
    assert capsys.readouterr().err == ("error: gfbgcn reproduce text needs matplotlib: "
                                       "pip install 'gfbgcn[figures]'\n")
    assert not (tmp_path / "results").exists()

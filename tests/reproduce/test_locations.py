"""Where results go by default: the source checkout's docs/, never the current directory."""

from __future__ import annotations

from pathlib import Path

import pytest

from gfbgcn.core.errors import OptionError
from gfbgcn.reproduce import locations


def test_results_default_to_the_checkouts_docs_and_are_required_elsewhere(monkeypatch) -> None:
    root = Path(__file__).resolve().parents[2]
    assert locations.results_directory(None) == root / "docs" / "results"
    assert locations.results_directory(None, "figures") == root / "docs" / "figures"
    assert locations.results_directory("elsewhere") == Path("elsewhere")
    monkeypatch.setattr(locations, "checkout_docs", lambda subdirectory: None)  # installed
    with pytest.raises(OptionError, match=r"^out is required: the default, docs/results of a "
                       r"gfbgcn source checkout, does not exist for an installed gfbgcn$"):
        locations.results_directory(None)


def test_reproduce_without_out_outside_a_checkout_is_one_line(monkeypatch, capsys) -> None:
    from gfbgcn.cli import main

    monkeypatch.setattr(locations, "checkout_docs", lambda subdirectory: None)
    assert main(["reproduce", "text", "--report-only"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["error: --out is required: the default, docs/results of a gfbgcn source "
                   "checkout, does not exist for an installed gfbgcn"]

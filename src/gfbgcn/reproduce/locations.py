"""Where a reproduction's results and figures go when no ``--out`` is given."""

from __future__ import annotations

from pathlib import Path

from gfbgcn.core.errors import OptionError


def checkout_docs(subdirectory: str) -> Path | None:
    """``docs/<subdirectory>`` of the gfbgcn source checkout this package is imported from
    (where the project's reports and figures live), or None for an installed package: a
    reproduction's results go there by default, never into whatever directory a command
    happens to be started in."""
    root = Path(__file__).resolve().parents[3]  # <root>/src/gfbgcn/reproduce/locations.py
    pyproject = root / "pyproject.toml"
    if not (pyproject.is_file() and (root / "docs" / subdirectory).is_dir()):
        return None
    return root / "docs" / subdirectory if 'name = "gfbgcn"' in pyproject.read_text(
        encoding="utf-8") else None


def results_directory(out: str | Path | None, subdirectory: str = "results") -> Path:
    """``out``, or the checkout's ``docs/<subdirectory>`` where it is not given."""
    if out is not None:
        return Path(out)
    found = checkout_docs(subdirectory)
    if found is None:
        raise OptionError("{0} is required: the default, docs/" + subdirectory + " of a gfbgcn "
                          "source checkout, does not exist for an installed gfbgcn", "out")
    return found

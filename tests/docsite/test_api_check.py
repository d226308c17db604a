"""The check that every public name is documented and in the API reference, on the real
package and on a small package written here with each fault it must find."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from docsite.api_check import ANCHOR, problems, public_packages, rendered_anchors
from docsite.griffe_docs import comment_docstring, markdown_roles

ROOT = Path(__file__).resolve().parents[2]


def test_the_package_source_has_no_undocumented_public_name() -> None:
    assert problems(ROOT / "src", None) == []


def test_the_public_packages_are_found() -> None:
    found = public_packages(ROOT / "src")
    assert {"gfbgcn", "gfbgcn.nn", "gfbgcn.nn.conv", "gfbgcn.text.estimator"} <= set(found)
    assert "gfbgcn.text" not in found  # no __all__ there: nothing public of its own
    assert "gfbgcn.core.paths" not in found  # an __all__, but internal (INTERNAL_PREFIXES)


def _package(tmp_path: Path, init: str, module: str) -> Path:
    src = tmp_path / "src"
    (src / "gfbgcn").mkdir(parents=True)
    (src / "gfbgcn" / "__init__.py").write_text(textwrap.dedent(init))
    (src / "gfbgcn" / "things.py").write_text(textwrap.dedent(module))
    return src


@pytest.fixture()
def faulty(tmp_path: Path) -> Path:
    return _package(tmp_path, '''
        """A package."""
        from typing import TYPE_CHECKING
        from gfbgcn.things import LIMIT, UNSAID, Shown, bare, told
        if TYPE_CHECKING:
            from gfbgcn.things import Lazy
        __all__ = ["LIMIT", "UNSAID", "Shown", "bare", "told", "Lazy", "Ghost"]
        ''', '''
        """Things."""
        #: The largest count.
        LIMIT = 3
        UNSAID = 4
        class Shown:
            """Documented."""
            def method(self):
                return 1
            def _private(self):
                return 2
        class Lazy:
            """Only __getattr__ would give it at run time."""
        def bare():
            return 0
        def told():
            """Documented."""
        ''')


def test_each_fault_is_named(faulty: Path) -> None:
    found = problems(faulty, None)
    assert found == [
        "gfbgcn.Ghost: in __all__, but not found in the source (a name only __getattr__ gives: "
        "import it under TYPE_CHECKING)",
        "gfbgcn.Shown.method: a public method without a docstring",
        "gfbgcn.UNSAID: no docstring",
        "gfbgcn.bare: no docstring",
    ]


def test_a_name_missing_from_the_built_reference_is_named(faulty: Path, tmp_path: Path) -> None:
    site = tmp_path / "site" / "reference" / "api"
    site.mkdir(parents=True)
    # the reference shows some under their defining module's path, one under the package's
    (site / "index.html").write_text('<h2 id="gfbgcn.things.LIMIT"></h2><h2 id="gfbgcn.Shown">'
                                     '</h2><h2 id="gfbgcn.things.told"></h2>')
    assert rendered_anchors(tmp_path / "site") == {"gfbgcn.things.LIMIT", "gfbgcn.Shown",
                                                   "gfbgcn.things.told"}
    missing = [line for line in problems(faulty, tmp_path / "site") if "API reference" in line]
    assert [line.split(":")[0] for line in missing] == ["gfbgcn.Lazy", "gfbgcn.UNSAID",
                                                        "gfbgcn.bare"]


def test_comment_docstrings_and_roles() -> None:
    lines = ["x = 1", "#: The first line", "#: and the second.", "LIMIT = 3"]
    assert comment_docstring(lines, 4) == "The first line\nand the second."
    assert comment_docstring(lines, 1) is None
    assert markdown_roles("see :class:`~gfbgcn.nn.GFBConv` and :func:`load`") == (
        "see `gfbgcn.nn.GFBConv` and `load`")
    assert ANCHOR.findall('<h2 id="gfbgcn.nn.GFBConv">') == ["gfbgcn.nn.GFBConv"]

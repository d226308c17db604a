"""A griffe extension (mkdocstrings reads the package with griffe): the project's docstring
conventions made readable on the site.

* A constant is documented by the ``#:`` comment lines just above it (the convention Sphinx
  reads, used throughout ``src/``); griffe itself only knows a string literal below it.
* Docstrings mark code with reST roles (``:class:`TextGCNClassifier```); the site renders
  Markdown, where the role's name would show as text, so the role is dropped and the code kept.
"""

from __future__ import annotations

import ast
import re
from typing import Any

import griffe

#: ``:class:`X```, ``:func:`~a.b```, ``:data:`X``` ...: a reST role around a name.
ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|data|attr|obj|exc|const):`~?([^`]+)`")


def comment_docstring(lines: list[str], lineno: int) -> str | None:
    """The ``#:`` comment block that ends just above line ``lineno`` (1-based) of ``lines``,
    without the markers; ``None`` where there is none."""
    found: list[str] = []
    index = lineno - 2
    while index >= 0 and lines[index].lstrip().startswith("#:"):
        found.append(lines[index].lstrip()[2:].strip())
        index -= 1
    return "\n".join(reversed(found)) or None


def markdown_roles(text: str) -> str:
    """``text`` with every reST role replaced by its code: ``:class:`~a.B``` -> ```a.B```."""
    return ROLE.sub(lambda m: f"`{m.group(1)}`", text)


class ProjectDocstrings(griffe.Extension):
    """Comment docstrings for constants, Markdown code for reST roles (module docstring)."""

    def on_attribute_instance(self, *, node: ast.AST | griffe.ObjectNode,
                              attr: griffe.Attribute, agent: Any, **kwargs: Any) -> None:
        if attr.docstring is not None or attr.lineno is None:
            return
        filepath = attr.filepath
        if isinstance(filepath, list) or filepath not in attr.lines_collection:
            return
        text = comment_docstring(list(attr.lines_collection[filepath]), attr.lineno)
        if text:
            attr.docstring = griffe.Docstring(markdown_roles(text), lineno=attr.lineno,
                                              parent=attr)

    def on_instance(self, *, node: ast.AST | griffe.ObjectNode, obj: griffe.Object, agent: Any,
                    **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown_roles(obj.docstring.value)

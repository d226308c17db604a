"""Every public name is documented, and is on the site.

The public names are those of the ``__all__`` of a package (an ``__init__.py``): ``gfbgcn``
itself and the sub-packages that declare one.  After a build, each must

* be found by griffe, the reader mkdocstrings uses (a name only ``__getattr__`` provides is
  invisible to it: import it under ``TYPE_CHECKING`` as well);
* have a docstring (a constant: a ``#:`` comment above it, :mod:`docsite.griffe_docs`); a
  class also for each public method it defines;
* be rendered in the API reference: an anchor of a built page under ``reference/`` names it,
  or another public path of the same object (``gfbgcn.nn.GFBConv`` is
  ``gfbgcn.nn.conv.GFBConv``).

:func:`problems` lists what fails, one line each; the build hook turns a non-empty list into
an error.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import griffe

from docsite.griffe_docs import ProjectDocstrings

#: An anchor that mkdocstrings writes for a documented object: its dotted path.
ANCHOR = re.compile(r'\bid="(gfbgcn(?:\.[A-Za-z_]\w*)*)"')


#: Packages whose ``__all__`` only gathers internal names for their siblings (``gfbgcn.core``:
#: paths, caches, errors shared by the subsystems); they are not on the site.
INTERNAL_PREFIXES: tuple[str, ...] = ("gfbgcn.core",)


def public_packages(src: Path) -> list[str]:
    """Dotted names of the packages under ``src`` whose ``__init__.py`` assigns ``__all__``,
    those under :data:`INTERNAL_PREFIXES` excepted."""
    found = []
    for init in sorted(src.rglob("__init__.py")):
        dotted = ".".join(init.parent.relative_to(src).parts)
        if any(dotted == p or dotted.startswith(p + ".") for p in INTERNAL_PREFIXES):
            continue
        tree = ast.parse(init.read_text(encoding="utf-8"))
        if any(isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__all__"
                                                    for t in node.targets)
               for node in tree.body):
            found.append(dotted)
    return found


def load(src: Path) -> griffe.Object | griffe.Alias:
    """The ``gfbgcn`` package as mkdocstrings reads it (same extension, aliases resolved)."""
    extensions = griffe.load_extensions(ProjectDocstrings())
    return griffe.load("gfbgcn", search_paths=[str(src)], extensions=extensions,
                       resolve_aliases=True, resolve_external=False)


def _lookup(root: griffe.Object | griffe.Alias, path: str) -> griffe.Object | None:
    """The object at dotted ``path`` (aliases followed), or ``None``."""
    try:
        obj = root if path == root.path else root[path.removeprefix(root.path + ".")]
        return obj.final_target if isinstance(obj, griffe.Alias) else obj
    except (KeyError, griffe.AliasResolutionError, griffe.CyclicAliasError):
        return None


def public_objects(root: griffe.Object | griffe.Alias, packages: list[str]
                   ) -> tuple[dict[str, griffe.Object], list[str]]:
    """``({public path: object}, [problems])``: each package's ``__all__`` looked up."""
    objects, missing = {}, []
    for package in packages:
        module = _lookup(root, package)
        exports = [] if module is None else [str(getattr(e, "name", e))
                                             for e in module.exports or []]
        if module is None or not exports:
            missing.append(f"{package}: its __all__ could not be read")
        for name in exports:
            obj = _lookup(root, f"{package}.{name}")
            if obj is not None and obj.is_module and module is not None \
                    and name in module.imports:
                # a function named as its own module (gfbgcn.nn.genvec): Python's attribute
                # is the function imported last, where griffe sees the submodule
                obj = _lookup(root, module.imports[name])
            if obj is None:
                missing.append(f"{package}.{name}: in __all__, but not found in the source "
                               "(a name only __getattr__ gives: import it under TYPE_CHECKING)")
            else:
                objects[f"{package}.{name}"] = obj
    return objects, missing


def undocumented(objects: dict[str, griffe.Object]) -> list[str]:
    """Public names without a docstring, and public methods of public classes without one."""
    lines = []
    for path, obj in sorted(objects.items()):
        if not obj.docstring or not obj.docstring.value.strip():
            lines.append(f"{path}: no docstring")
        if obj.is_class:
            for name, member in obj.members.items():
                if (not name.startswith("_") and not isinstance(member, griffe.Alias)
                        and member.is_function and not member.docstring):
                    lines.append(f"{path}.{name}: a public method without a docstring")
    return lines


def rendered_anchors(site_dir: Path) -> set[str]:
    """The object paths that the built API reference has anchors for."""
    found: set[str] = set()
    for page in (site_dir / "reference").rglob("*.html"):
        found.update(ANCHOR.findall(page.read_text(encoding="utf-8")))
    return found


def unrendered(root: griffe.Object | griffe.Alias, objects: dict[str, griffe.Object],
               anchors: set[str]) -> list[str]:
    """Public names none of whose paths is rendered in the API reference."""
    shown = {obj.canonical_path for obj in map(lambda a: _lookup(root, a), anchors) if obj}
    return [f"{path}: not in the API reference (add it to a page under docs/reference/api/)"
            for path, obj in sorted(objects.items()) if obj.canonical_path not in shown]


def problems(src: Path, site_dir: Path | None) -> list[str]:
    """Every failure of the module docstring's rules; ``site_dir=None``: the source only."""
    root = load(src)
    objects, missing = public_objects(root, public_packages(src))
    found = missing + undocumented(objects)
    if site_dir is not None:
        found += unrendered(root, objects, rendered_anchors(site_dir))
    return found

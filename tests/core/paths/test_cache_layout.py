"""Entries of each kind, oldest use first; touching marks use; every cache folder the
code writes is a kind folder."""

from __future__ import annotations

import time
from pathlib import Path

from gfbgcn.core import paths


def test_entries_of_each_kind_oldest_use_first(root: Path) -> None:
    entries = paths.cache_entries()
    names = [(e.kind, e.path.name) for e in entries]
    assert names[:3] == [("other", "0c2195d497e083cf"), ("graphs", "r8-aaa.npz"),
                         ("embeddings", "0123abcd.npz")]
    assert {n for _, n in names} == {"0c2195d497e083cf", "r8-aaa.npz", "0123abcd.npz",
                                     "texts-bbb.npz", "4567cdef.npz", "aifb"}
    aifb = next(e for e in entries if e.path.name == "aifb")
    assert aifb.size < 7777  # the link is counted, never its target


def test_touch_marks_an_entry_used(root) -> None:
    path = root / "graphs" / "r8-aaa.npz"
    paths.touch(path)
    assert time.time() - path.stat().st_mtime < 60
    paths.touch(root / "graphs" / "gone.npz")  # nothing to touch: no error


def test_every_cache_folder_the_code_writes_is_a_kind_folder() -> None:
    """Each ``cache_dir("...")`` of the package names a folder :data:`KIND_FOLDERS` lists, so
    ``cache info`` counts it and ``cache clear`` can remove it."""
    import ast

    src = Path(paths.__file__).resolve().parents[2]  # the gfbgcn package
    folders = set()
    for path in src.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "cache_dir"
                    and node.args):
                arg = node.args[0]
                text = arg.value if isinstance(arg, ast.Constant) else \
                    arg.values[0].value if isinstance(arg, ast.JoinedStr) else None
                folders.add(str(text).split("/")[0])
    assert folders == {f for fs in paths.KIND_FOLDERS.values() for f in fs}

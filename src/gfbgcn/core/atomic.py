"""Output directories written as a whole: a run (``train --out``), a model (``--save``) or an
evaluation (``evaluate --out``).

The new directory is written under a temporary sibling name (``.NAME.tmp-HOST-PID.XXXX``,
removed by the next write if a killed process left it: :func:`gfbgcn.core.io.remove_abandoned`)
and only
then put in place, so an interrupted write never mixes two runs or leaves a working model
unloadable: the old directory stays whole until the new one is complete.  On Linux the two are
swapped in one atomic ``renameat2(RENAME_EXCHANGE)``; elsewhere the old one is first renamed to
``.NAME.old-XXXX`` (kept there, never removed by gfbgcn, should the process die between the
two renames).

A directory is only ever replaced by one of its own kind: a run never overwrites a model (or
anything else), and a directory holding files gfbgcn did not write is refused, not deleted.
Writability is checked by :func:`check_output_dir` before any training starts.

What makes a directory gfbgcn's is one marker file, :data:`MARKER` (``.gfbgcn``, naming the
kind), written into every directory this module puts in place, never the names of the other
files: a user's own directory holding only a ``vocab.json``, a ``metrics.json`` or a
``config.json`` with a ``train`` key is not ours.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from gfbgcn.core.errors import OptionError, phase
from gfbgcn.core.figures.run import RUN_FIGURES
from gfbgcn.core.io import (
    atomic_write_json,
    current_umask,
    read_json,
    remove_abandoned,
    temporary_prefix,
)

#: The file that marks a directory gfbgcn wrote, and of which kind (``{"kind": "run"}``).
MARKER = ".gfbgcn"

#: The files of each kind of directory gfbgcn writes.
KIND_FILES = {
    # auto.csv: the candidates of `train --auto`; predictions.csv: the test documents';
    # the figures (curves.png, confusion.png or label_f1.png) where matplotlib is installed
    "run": frozenset({"config.json", "history.csv", "metrics.json", "auto.csv",
                      "predictions.csv", *RUN_FIGURES}),
    # linear.*: the linear (n-gram TF-IDF) part of a combined model (gfbgcn.text.predict.combined);
    # transductive.safetensors: the outputs of the fitted documents (gfbgcn.TextGCNClassifier)
    "model": frozenset({"config.json", "model.safetensors", "vocab.json",
                        "linear.safetensors", "linear.json", "transductive.safetensors"}),
    # a saved model scored on a labelled file (gfbgcn.text.predict.evaluate)
    "evaluation": frozenset({"metrics.json", "per_class.csv", "confusion.csv", "predictions.csv",
                             "confusion.png"}),
}
#: What each kind of directory is, and the parameter that writes one (messages name it).
_DESCRIPTION = {"run": ("a training run", "out"), "model": ("a saved model", "save"),
                "evaluation": ("an evaluation", "out")}


def write_marker(directory: str | os.PathLike[str], kind: str) -> None:
    """Mark ``directory`` as a gfbgcn directory of ``kind`` (``run``, ``model``,
    ``evaluation``)."""
    atomic_write_json(Path(directory) / MARKER, {"written_by": "gfbgcn", "kind": kind})


def _json_object(path: Path) -> dict[str, Any] | None:
    """The JSON object in ``path``, or ``None`` where it is unreadable or not an object (a
    user's file of the same name is just not gfbgcn's)."""
    try:
        data = read_json(path)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _marker_kind(marker: Path) -> str | None:
    """The kind a marker file names, or ``None`` when it is not a gfbgcn marker."""
    data = _json_object(marker)
    if data is None or data.get("written_by") != "gfbgcn":
        return None
    kind = data.get("kind")
    return kind if isinstance(kind, str) and kind in KIND_FILES else None


def directory_kind(path: str | os.PathLike[str]) -> str:
    """``"missing"``, ``"empty"``, ``"run"``, ``"model"``, ``"evaluation"`` or ``"other"``
    (anything else).

    A run or a model is a directory with the :data:`MARKER` of that kind and no file that kind
    does not write."""
    path = Path(path)
    if not path.exists():
        return "missing"
    if not path.is_dir():
        return "other"
    names = {entry.name for entry in path.iterdir()}
    if not names:
        return "empty"
    files = names - {MARKER}
    if MARKER in names:
        kind = _marker_kind(path / MARKER)
        return kind if kind is not None and files <= KIND_FILES[kind] else "other"
    return "other"


def _not_gfbgcns(path: Path, kind: str) -> str:
    """Why ``path``, a directory or file gfbgcn did not write as ``kind``, is not replaced."""
    if not path.is_dir():
        return "exists and is not a directory"
    extra = sorted(e.name for e in path.iterdir() if e.name not in KIND_FILES[kind] | {MARKER})
    if extra:
        return (f"holds files gfbgcn did not write ({', '.join(extra[:3])}"
                f"{', ...' if len(extra) > 3 else ''})")
    return f"was not written by gfbgcn (it has no {MARKER} marker file)"


_REFUSED = "refusing to replace it (choose a new or empty directory)"


def check_output_dir(path: str | os.PathLike[str], kind: str, option: str) -> Path:
    """Refuse ``path`` unless it is missing, empty or a directory of ``kind``, and unless a
    directory can be created beside it.  Called before any long work.  ``option``: the
    parameter that named ``path`` (``out``), which the :class:`OptionError` names."""
    path = Path(path)
    found = directory_kind(path)
    if found in _DESCRIPTION and found != kind:
        what, writer = _DESCRIPTION[found]
        raise OptionError("{0} {path}: is {what} ({1}); " + _REFUSED, option, writer,
                          path=str(path), what=what)
    if found == "other":
        raise OptionError("{0} {path}: {what}; " + _REFUSED, option, path=str(path),
                          what=_not_gfbgcns(path, kind))
    parent = path.absolute().parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        os.rmdir(tempfile.mkdtemp(prefix=f".{path.name}.probe-", dir=parent))
    except OSError as err:
        raise OptionError("{0} {path}: cannot write there ({reason})", option, path=str(path),
                          reason=err.strerror or err) from None
    return path


def check_outputs(out: str | None, save: str | None) -> None:
    """A training run's directory ``out`` and a model's ``save``: each writable and of its
    kind, and distinct."""
    if out:
        check_output_dir(out, "run", "out")
    if save:
        check_output_dir(save, "model", "save")
    if out and save:
        a, b = Path(out).resolve(), Path(save).resolve()
        if a == b or a in b.parents or b in a.parents:
            raise OptionError("{0} {out} and {1} {save} must be separate directories (a run and "
                              "a model each own their directory)", "out", "save", out=out,
                              save=save)


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths atomically (Linux ``renameat2``); ``False`` where unsupported."""
    libc_name = ctypes.util.find_library("c")
    if not libc_name:
        return False
    try:
        renameat2 = ctypes.CDLL(libc_name, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    return renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0


def _put_in_place(tmp: Path, path: Path) -> None:
    if not path.exists():
        os.rename(tmp, path)
        return
    if _exchange(tmp, path):
        shutil.rmtree(tmp)  # tmp now holds the old directory
        return
    old = Path(tempfile.mkdtemp(prefix=f".{path.name}.old-", dir=path.parent))
    os.rmdir(old)
    os.rename(path, old)
    os.rename(tmp, path)
    shutil.rmtree(old)


@contextlib.contextmanager
def atomic_directory(path: str | os.PathLike[str], kind: str,
                     option: str = "output") -> Iterator[Path]:
    """Yield a temporary sibling directory to fill; on success it replaces ``path``."""
    path = Path(path)
    if path.is_symlink():  # replace the directory it points to, not the link
        path = path.resolve()
    check_output_dir(path, kind, option)
    parent = path.absolute().parent
    remove_abandoned(parent, path.name)
    tmp = Path(tempfile.mkdtemp(prefix=temporary_prefix(path), dir=parent))
    os.chmod(tmp, 0o777 & ~current_umask())  # mkdtemp makes 0700; honour the umask
    try:
        with phase(f"writing {kind} {path}"):  # the path says which; no flag below the CLI
            yield tmp
            write_marker(tmp, kind)  # what lets the next write replace it
            _put_in_place(tmp, path)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise

"""What an output path may be: the one policy of every verb's ``--out``, ``--save``, ``--output``
and report.

* An empty path is an error (it is usually an unset shell variable), never "write nothing".
* ``-`` is standard output.
* A path that exists and is not a regular file (a character device such as ``/dev/null``, a
  pipe, a socket), directly or through a symbolic link, and any path under ``/dev/`` or
  ``/proc/`` (``/dev/stdout`` names the caller's descriptor even when it is redirected to a
  regular file) is written *through*: opened and written, never replaced, so ``--output
  /dev/stdout`` or ``--output >(gzip > p.gz)`` work and ``/dev/null`` stays a device.  A named
  pipe is opened once something reads it, waiting at most :data:`READER_WAIT` seconds for a
  reader rather than forever; a socket, which cannot be opened, is refused before any work.
* A regular file is replaced atomically (written beside it, then renamed over it); through a
  symbolic link, the file the link points to is replaced and the link kept.
* An output never replaces one of the command's inputs (``predict --input c.csv --output
  c.csv``), and never lands inside a saved model or a training run directory (those are
  written whole by :mod:`gfbgcn.core.atomic`, and a stray file would corrupt them).

Directories (``--out``, ``--save``) follow :func:`gfbgcn.core.atomic.check_output_dir`; this
module adds the empty-path and not-a-model rules for a results directory.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from gfbgcn.core.atomic import directory_kind
from gfbgcn.core.errors import OptionError, UserError, phase
from gfbgcn.core.io import atomic_write_text

STDOUT = "-"
#: What each kind of gfbgcn directory is, and the parameter that writes one.
_GFBGCN_DIRECTORIES = {"model": ("a saved model", "save"), "run": ("a training run", "out"),
                       "evaluation": ("an evaluation", "out")}


def nonempty_path(path: str, option: str) -> str:
    """``path``, unless it is empty (usually an unset shell variable): an :class:`OptionError`
    naming setting ``option`` (a Python parameter; the command line shows its option)."""
    if not path.strip():
        raise OptionError("{0}: empty path (an unset variable?); give a file or directory name",
                          option)
    return path


#: Where paths name devices and open descriptors (``/dev/stdout``, ``/dev/fd/63``,
#: ``/proc/self/fd/1``), whatever these point to: always written through, never renamed over.
_DESCRIPTOR_ROOTS = ("/dev/", "/proc/")


def _is_special(path: Path) -> bool:
    """A device, pipe or socket (following symbolic links), or a path naming a descriptor."""
    if str(path.absolute()).startswith(_DESCRIPTOR_ROOTS):
        return True  # /dev/stdout of `> file` is a regular file, yet the caller's descriptor
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def _is_socket(path: Path) -> bool:
    try:
        return stat.S_ISSOCK(os.stat(path).st_mode)
    except OSError:
        return False


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def inside_gfbgcn_directory(target: Path) -> str | None:
    """The kind of gfbgcn directory ``target`` would land in (``model``, ``run``,
    ``evaluation``), if any."""
    for parent in target.parents:
        kind = directory_kind(parent)
        if kind in _GFBGCN_DIRECTORIES:
            return kind
        if parent == parent.parent:
            break
    return None


#: Seconds a named pipe given as an output may go without a reader before the write is given
#: up (opening it for writing would otherwise wait forever for one).
READER_WAIT = 30.0


def _open_named_pipe(path: Path, wait: float) -> int:
    """A descriptor writing into named pipe ``path`` once something reads it, tried without
    blocking (``ENXIO``: no reader yet) for at most ``wait`` seconds."""
    deadline = time.monotonic() + wait
    while True:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as err:
            if err.errno != errno.ENXIO:
                raise
            if time.monotonic() >= deadline:
                raise UserError(f"{path}: a named pipe that nothing read from within {wait:g} s; "
                                f"start its reader first (cat {path} &), or give a file") from None
            time.sleep(0.05)
            continue
        os.set_blocking(fd, True)
        return fd


def open_written_through(path: Path, wait: float | None = None) -> TextIO:
    """``path`` (a device, a pipe, a descriptor's name) opened for writing text: a named pipe
    without a reader is waited on for at most :data:`READER_WAIT` seconds, not forever."""
    descriptor = str(path.absolute()).startswith(_DESCRIPTOR_ROOTS)
    try:
        is_pipe = stat.S_ISFIFO(os.stat(path).st_mode)
    except OSError:
        is_pipe = False
    if not is_pipe or descriptor:
        return open(path, "w", encoding="utf-8", newline="")
    fd = _open_named_pipe(path, READER_WAIT if wait is None else wait)
    return open(fd, "w", encoding="utf-8", newline="")


@dataclass(frozen=True)
class OutputFile:
    """Where one output file goes: standard output, a special file written through, or a
    regular file replaced atomically (``target``: the link's destination for a link)."""

    option: str  # the parameter that named it
    given: str
    target: Path | None  # None: standard output
    write_through: bool

    def write_text(self, text: str) -> None:
        """Write ``text``; a full disk or a size limit is reported as ``writing NAME: ...``."""
        with phase(f"writing {self.name}"):
            if self.target is None:
                sys.stdout.write(text)
                sys.stdout.flush()
            elif self.write_through:
                with open_written_through(self.target) as fh:
                    fh.write(text)
            else:
                atomic_write_text(self.target, text)

    @property
    def name(self) -> str:
        """How to name it in messages: as the user gave it."""
        return "standard output" if self.target is None else self.given


def output_file(path: str, option: str, *, inputs: Iterable[str | os.PathLike[str]] = ()
                ) -> OutputFile:
    """Check an output file path against the policy of this module, before any work.

    Args:
        path: the path as given (``-``: standard output).
        option: the parameter that named it (``output``), for messages (the command line
            shows its option, ``--output``).
        inputs: the command's input files; the output may be none of them.

    Raises:
        OptionError: an empty path, a directory, an input, or a path inside a saved model or
            run directory.
    """
    nonempty_path(path, option)
    if path == STDOUT:
        return OutputFile(option, path, None, write_through=False)
    given = Path(path)
    special = _is_special(given)  # through the link as given: /dev/fd/63 of >(cmd) names
    # "pipe:[123]", which resolves to no path
    target = given.resolve() if given.is_symlink() and not special else given
    if target.is_dir():
        raise OptionError("{0} {path}: is a directory; give a file name", option, path=path)
    for source in inputs:
        if _same_file(target, Path(source)):
            raise OptionError("{0} {path}: is an input of this command ({source}); refusing to "
                              "replace it", option, path=path, source=str(source))
    if special:
        if _is_socket(target):  # no file to open: refused now, not after the work
            raise OptionError("{0} {path}: is a socket; give a file name", option, path=path)
        return OutputFile(option, path, target, write_through=True)
    kind = inside_gfbgcn_directory(target.absolute())
    if kind is not None:
        what, writer = _GFBGCN_DIRECTORIES[kind]
        raise OptionError("{0} {path}: lies inside {what} ({1}); refusing to write into it "
                          "(choose a path outside)", option, writer, path=path, what=what)
    return OutputFile(option, path, target, write_through=False)


def check_results_directory(path: str, option: str = "out") -> Path:
    """A ``reproduce`` results directory: not empty as a path, not a file, not a saved model
    or training run directory (``option``: the parameter that named it, for messages)."""
    nonempty_path(path, option)
    out = Path(path)
    if out.exists() and not out.is_dir():
        raise OptionError("{0} {path}: exists and is not a directory", option, path=path)
    kind = directory_kind(out)
    if kind in _GFBGCN_DIRECTORIES:
        what, writer = _GFBGCN_DIRECTORIES[kind]
        raise OptionError("{0} {path}: is {what} ({1}); refusing to write a report into it "
                          "(choose a results directory)", option, writer, path=path, what=what)
    return out

"""What an input path may be: the one policy of every option that names something to read, and
of every file a loader opens (a corpus, a stop-word list, a labelled file, the files of a saved
model or of a sentence encoder).  The counterpart of :mod:`gfbgcn.core.paths.outputs`.

Three kinds of input, each refused in one line naming the path and what it is instead:

* A **file** is read more than once (its sha256 goes into a cache key or a record), lazily or
  by libraries that open it themselves: only a regular file, directly or through symbolic
  links, is taken (:func:`is_regular_file`).  A named pipe would block its reader forever in
  ``open()`` when nothing writes to it, and hand over its bytes only once; a device such as
  ``/dev/zero`` never ends; a socket cannot be opened; a directory is not a file.
* A **stream** is read once, from its start, before the work that needs it (``predict
  --input``): a regular file, a named pipe or a process substitution (``<(cmd)``,
  ``/dev/fd/N``), a terminal, or standard input (``-``, handled by the caller)
  (:func:`read_stream`).  A named pipe (not a ``/dev/fd/N`` one, whose writer is there from
  the start) is opened without blocking and its first bytes (or its end) awaited for at most
  :data:`WRITER_WAIT` seconds, so one that nothing writes to is an error, not a hang; once its
  writer has started, it is read to its end as ``cat`` would.  A device other than a terminal
  (``/dev/zero`` never ends), a socket or a directory is refused.
* A **directory** (a model, an encoder, the data root) must be one (:func:`check_directory`);
  every entry a loader hands to another library must then be a regular file or a directory
  (:func:`check_entries`), so that no library opens a pipe on our behalf.
"""

from __future__ import annotations

import os
import select
import stat
import time
from pathlib import Path

from gfbgcn.core.errors import InputError

#: Seconds a named pipe given as a stream may take to deliver its first bytes (or its end):
#: its writer is usually started beside the command (``cmd > fifo &``), and waits in its own
#: ``open()`` until this process opens the pipe.
WRITER_WAIT = 30.0
#: Where paths name open descriptors (``/dev/fd/63`` of ``<(cmd)``, ``/dev/stdin``,
#: ``/proc/self/fd/0``): a pipe there already has its writer, so it is read without a wait.
_DESCRIPTOR_ROOTS = ("/dev/", "/proc/")


def kind_of(mode: int) -> str:
    """What a file of ``st_mode`` ``mode`` is, as an error names it (``a named pipe (FIFO)``)."""
    kinds = ((stat.S_ISREG, "a regular file"), (stat.S_ISDIR, "a directory"),
             (stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISSOCK, "a socket"),
             (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))
    return next((name for test, name in kinds if test(mode)), "not a file")


def _mode(path: Path) -> int | None:
    """``st_mode`` of ``path`` through symbolic links; None where nothing is there (a dangling
    link included)."""
    try:
        return os.stat(path).st_mode
    except FileNotFoundError:
        return None
    except NotADirectoryError:  # a/b where a is a file: nothing is there either
        return None


def is_regular_file(path: str | os.PathLike[str], why: str = "",
                    error: type[Exception] = InputError) -> bool:
    """``True`` for a regular file (through symbolic links), ``False`` where nothing is there
    (the caller says what was expected); anything else is ``error``: ``PATH: is a named pipe
    (FIFO), not a regular file`` and ``why`` (``; --dataset is read twice``).

    Raises ``PermissionError`` where the path cannot even be looked at."""
    mode = _mode(Path(path))
    if mode is None:
        return False
    if stat.S_ISREG(mode):
        return True
    raise error(f"{path}: is {kind_of(mode)}, not a regular file{why}")


def check_directory(path: str | os.PathLike[str], what: str | None = None,
                    error: type[Exception] = InputError) -> bool:
    """``True`` for a directory (through symbolic links), ``False`` where nothing is there;
    anything else is ``error``: ``WHAT: is a regular file, not a directory`` (``what``: the
    path by default, ``encoder PATH``)."""
    mode = _mode(Path(path))
    if mode is None:
        return False
    if stat.S_ISDIR(mode):
        return True
    raise error(f"{what or path}: is {kind_of(mode)}, not a directory")


def check_entries(folder: str | os.PathLike[str], what: str,
                  error: type[Exception] = InputError) -> None:
    """Every entry of ``folder`` (not recursive) is a regular file or a directory, through
    symbolic links (a dangling link is left to whoever needs it: it reads as missing):
    ``error`` naming the first that is not."""
    folder = Path(folder)
    try:
        entries = sorted(folder.iterdir())
    except OSError:
        return  # the caller's own read says why
    for entry in entries:
        mode = _mode(entry)
        if mode is not None and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            raise error(f"{what}: {entry.name} is {kind_of(mode)}, not a regular file")


def _await_first_bytes(fd: int, path: Path, wait: float) -> None:
    """Block until the pipe ``fd`` has bytes or its writer has closed it, for at most
    ``wait`` seconds (then :class:`InputError`)."""
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLHUP)
    deadline = time.monotonic() + wait
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise InputError(f"{path}: a named pipe that nothing was written to within "
                             f"{wait:g} s; start its writer first (cmd > {path} &), or give a "
                             "regular file")
        if poller.poll(min(left, 1.0) * 1000):
            return


def check_stream(path: str | os.PathLike[str], what: str = "input") -> int | None:
    """The ``st_mode`` of stream ``path`` (None where nothing is there) when it may be one: a
    regular file, a pipe or a character device (only a terminal is read, :func:`read_stream`);
    a directory, a socket or a block device is :class:`InputError`."""
    mode = _mode(Path(path))
    if mode is None:
        return None
    if stat.S_ISDIR(mode):
        raise InputError(f"{path}: is a directory, not a file of {what}")
    if not (stat.S_ISREG(mode) or stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)):
        raise InputError(f"{path}: is {kind_of(mode)}, not a file of {what}")
    return mode


def read_stream(path: str | os.PathLike[str], what: str = "input",
                wait: float | None = None) -> bytes:
    """The bytes of stream ``path`` (see the module docstring), read once to its end.

    Args:
        path: a regular file, a named pipe, a process substitution or a terminal.
        what: what the stream holds, for messages (``documents``).
        wait: seconds a named pipe may stay silent at first (default :data:`WRITER_WAIT`).
    """
    path = Path(path)
    mode = check_stream(path, what)
    if mode is None:
        raise InputError(f"{path}: not found ({what})")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a pipe without writer: no block
    except OSError as err:
        raise InputError(f"{path}: cannot read ({err.strerror or err})") from None
    try:
        if stat.S_ISCHR(mode) and not os.isatty(fd):  # /dev/zero, /dev/urandom: no end
            raise InputError(f"{path}: is {kind_of(mode)}, not a file of {what}")
        named = not str(path.absolute()).startswith(_DESCRIPTOR_ROOTS)
        if stat.S_ISFIFO(os.fstat(fd).st_mode) and named:
            _await_first_bytes(fd, path, WRITER_WAIT if wait is None else wait)
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=False) as fh:  # a pipe has no size: to its end
            return fh.read()
    except OSError as err:
        raise InputError(f"{path}: cannot read ({err.strerror or err})") from None
    finally:
        os.close(fd)

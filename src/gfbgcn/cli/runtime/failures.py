"""How the command line reports a failure: one line on standard error, never a traceback.

A *user error* (:class:`~gfbgcn.core.errors.UserError`, its :class:`~gfbgcn.core.errors.
OptionError` included, an ``OSError`` of a bad path, a missing data resource, a full disk, too
little memory) prints ``error: <message>`` and exits with status 2.  Anything else is a bug,
bare ``ValueError`` and ``TypeError`` included (library code raises them for programming errors
only; bad input is a ``UserError``): status 1, still in one line, asking for ``--debug`` (or
``GFBGCN_DEBUG=1``), which lets the exception propagate with its traceback.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys
import warnings
from collections.abc import Callable, Iterator
from typing import Any

from gfbgcn.cli.runtime.streams import say
from gfbgcn.core.errors import (
    ParameterWarning,
    UserError,
    is_out_of_memory,
    one_line,
    phase_of,
)

#: Exit status of a command that was given bad input.
USER_ERROR = 2
#: Exit status of an unexpected failure (a bug).
INTERNAL_ERROR = 1

#: Failures of the machine rather than of the program: a full or read-only disk, no permission,
#: a file size limit (``ulimit -f``; Python ignores SIGXFSZ, so the write fails with EFBIG).
_RESOURCE_ERRNOS = {errno.ENOSPC: "no space left on device", errno.EDQUOT: "disk quota exceeded",
                    errno.EROFS: "read-only file system", errno.EACCES: "permission denied",
                    errno.EFBIG: "file too large for this process's file size limit (ulimit -f)"}


def _resource_errno(err: BaseException) -> int | None:
    """The errno of a full or read-only disk anywhere in the exception's chain (libraries such
    as safetensors wrap the ``OSError``), or None."""
    seen: set[int] = set()
    link: BaseException | None = err
    while link is not None and id(link) not in seen:
        seen.add(id(link))
        if isinstance(link, OSError) and link.errno in _RESOURCE_ERRNOS:
            return link.errno
        text = str(link)
        for code in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):  # what wrapping libraries keep
            if os.strerror(code) in text:  # e.g. SafetensorError "... File too large (os error 27)"
                return code
        link = link.__cause__ or link.__context__
    return None


def _resource_message(err: BaseException) -> str | None:
    if isinstance(err, UserError):  # already says what and where
        return None
    where = phase_of(err)
    if is_out_of_memory(err):
        return (f"out of memory while {where or 'running'}; need less at once: e.g. "
                "--batch-size N (mini-batch training), a larger --min-freq or a smaller "
                "--hidden")
    code = _resource_errno(err)
    if code is None:
        return None
    filename = getattr(err, "filename", None)
    return f"{where or filename or 'writing'}: {_RESOURCE_ERRNOS[code]}"


def debug_requested(flag: bool = False) -> bool:
    """``--debug`` was given or ``GFBGCN_DEBUG`` is set to a true value."""
    env = os.environ.get("GFBGCN_DEBUG", "").strip().lower()
    return flag or env not in ("", "0", "false", "no", "off")


def describe(err: BaseException) -> str:
    """The text after ``error: `` for ``err``."""
    resource = _resource_message(err)
    if resource is not None:
        return resource
    if isinstance(err, OSError) and err.filename is not None and err.strerror:
        return f"{err.filename}: {err.strerror}"
    if isinstance(err, KeyError):  # str(KeyError('x')) is "'x'": say what it is
        return f"missing key {err}"
    return one_line(str(err)) if str(err) else type(err).__name__


def exit_status(err: BaseException) -> int:
    """2 for bad input (a :class:`UserError`, a bad path, a missing data resource, a machine
    short of memory or disk), else 1: a bare ``ValueError``/``TypeError`` is a bug."""
    # a bare LookupError is a missing data resource (NLTK's); KeyError and IndexError are bugs
    user = isinstance(err, (UserError, OSError)) or type(err) is LookupError
    resource = is_out_of_memory(err) or _resource_errno(err) is not None
    return USER_ERROR if user or resource else INTERNAL_ERROR


def report(err: BaseException, where: str = "") -> int:
    """Print ``err`` in one line on standard error (``where``: a prefix of the message, e.g.
    ``"rank 1: "``); return the exit status."""
    status = exit_status(err)
    if status == USER_ERROR:
        say(f"error: {where}{describe(err)}")
    else:
        say(f"error: {where}internal error ({type(err).__name__}: {describe(err)}); rerun "
            "with --debug (or GFBGCN_DEBUG=1) for the traceback and please report it")
    return status


@contextlib.contextmanager
def one_line_warnings(spell: Callable[[str], str] = str) -> Iterator[None]:
    """Show warnings as ``warning: message`` lines on standard error (no source lines); a
    :class:`~gfbgcn.core.errors.ParameterWarning` with its parameters spelled by ``spell``
    (the command line's: their options)."""
    def show(message: Warning | str, category: type[Warning], filename: str, lineno: int,
             file: Any = None, line: str | None = None) -> None:
        text = message.render(spell) if isinstance(message, ParameterWarning) else str(message)
        print(f"warning: {one_line(text)}", file=sys.stderr)

    with warnings.catch_warnings():
        warnings.showwarning = show
        yield

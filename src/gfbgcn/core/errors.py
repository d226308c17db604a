"""How the command line reports a failure: one line on standard error, never a traceback.

A *user error* (a file that is not there, a malformed corpus row, an option out of range, an
output directory that cannot be written, ...) exits with status 2 and the message alone.
``ValueError`` and ``OSError`` (what the readers and checks raise, and what a bad path gives)
count as bad input, as does a missing data resource (a bare ``LookupError``, as NLTK raises).
Anything else is a bug: it exits with status 1, still in one line, and asks for ``--debug``
(or ``GFBGCN_DEBUG=1``), which lets the exception propagate with its traceback.
"""

from __future__ import annotations

import contextlib
import os
import sys
import warnings
from collections.abc import Iterator

#: Exit status of a command that was given bad input.
USER_ERROR = 2
#: Exit status of an unexpected failure (a bug).
INTERNAL_ERROR = 1


class UserError(ValueError):
    """Bad input that the user can fix; the message says what and where, in one line."""


def debug_requested(flag: bool = False) -> bool:
    """``--debug`` was given or ``GFBGCN_DEBUG`` is set to a true value."""
    env = os.environ.get("GFBGCN_DEBUG", "").strip().lower()
    return flag or env not in ("", "0", "false", "no", "off")


def _user_error_types() -> tuple[type[BaseException], ...]:
    """Exceptions that mean bad input (imported lazily: the CLI starts fast)."""
    from gfbgcn.text.corpus.benchmarks import CorpusFormatError, DatasetNotFoundError
    from gfbgcn.text.predict.io import InputError
    from gfbgcn.text.predict.saved import ModelLoadError

    return (UserError, CorpusFormatError, DatasetNotFoundError, InputError, ModelLoadError,
            OSError, ValueError)


def one_line(message: str) -> str:
    """Collapse a (possibly multi-line, boxed) message into one line."""
    parts = [p.strip() for p in str(message).splitlines()]
    return " ".join(p for p in parts if p.strip("*=-")) or "(no message)"  # drop box rules


def describe(err: BaseException) -> str:
    """The text after ``error: `` for ``err``."""
    if isinstance(err, OSError) and err.filename is not None and err.strerror:
        return f"{err.filename}: {err.strerror}"
    if isinstance(err, KeyError):  # str(KeyError('x')) is "'x'": say what it is
        return f"missing key {err}"
    return one_line(str(err)) if str(err) else type(err).__name__


def exit_status(err: BaseException) -> int:
    try:
        user = _user_error_types()
    except Exception:  # noqa: BLE001 - the report must not fail on an import error
        user = (UserError, OSError, ValueError)
    # a bare LookupError is a missing resource (NLTK data); KeyError/IndexError are bugs
    missing_resource = type(err) is LookupError or type(err).__name__ == "StopWordsNotFoundError"
    return USER_ERROR if isinstance(err, user) or missing_resource else INTERNAL_ERROR


def report(err: BaseException) -> int:
    """Print ``err`` in one line on standard error; return the exit status."""
    status = exit_status(err)
    if status == USER_ERROR:
        print(f"error: {describe(err)}", file=sys.stderr)
    else:
        print(f"error: internal error ({type(err).__name__}: {describe(err)}); rerun with "
              "--debug (or GFBGCN_DEBUG=1) for the traceback and please report it",
              file=sys.stderr)
    return status


@contextlib.contextmanager
def one_line_warnings() -> Iterator[None]:
    """Show warnings as ``warning: message`` lines on standard error (no source lines)."""
    def show(message, category, filename, lineno, file=None, line=None) -> None:
        print(f"warning: {one_line(str(message))}", file=sys.stderr)

    with warnings.catch_warnings():
        warnings.showwarning = show
        yield

"""Every error a user can cause, and how the command line reports one: one line, never a traceback.

A *user error* is bad input the user can fix: a file that is not there, a malformed corpus row,
an option out of range, an output that cannot be written, a model directory that does not load.
Each is a :class:`UserError` (or an ``OSError``, which bad paths give): the command prints
``error: <message>`` and exits with status 2. Anything else is a bug: status 1, still in one
line, asking for ``--debug`` (or ``GFBGCN_DEBUG=1``), which lets the exception propagate with its
traceback. The task packages raise these classes; this module imports none of them.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys
import warnings
from collections.abc import Callable, Iterator
from typing import Any

#: Exit status of a command that was given bad input.
USER_ERROR = 2
#: Exit status of an unexpected failure (a bug).
INTERNAL_ERROR = 1


class UserError(ValueError):
    """Bad input that the user can fix; the message says what and where, in one line."""


class OptionError(UserError):
    """An option out of its range, or options that cannot be used together.

    The same setting has two names: a Python parameter (``random_state``, ``min_freq``) and a
    command-line option (``--seed``, ``--min-freq``).  A message that names settings is a
    template whose positional fields are their Python names and whose keyword fields are
    values: ``OptionError("{0} must be >= 1, got {value}", "epochs", value=0)``.  Its text
    (``str(err)``, what Python callers see) names the parameters, ``epochs must be >= 1, got
    0``; the command line renders it with its options (:meth:`render`, through
    :func:`gfbgcn.cli.parameters.with_flags`).  A plain message (no parameters, no values) is
    used as it is.
    """

    def __init__(self, template: str, *parameters: str, **values: Any) -> None:
        self.template, self.parameters, self.values = template, parameters, values
        super().__init__(self.render(str))

    def render(self, spell: Callable[[str], str]) -> str:
        """The message with each parameter spelled by ``spell`` (``str``: its Python name)."""
        if not (self.parameters or self.values):
            return self.template
        return self.template.format(*(spell(p) for p in self.parameters), **self.values)

    def __reduce__(self) -> tuple[Any, ...]:
        # pickled (process pools) with its parameters, not as the rendered text alone
        return (_option_error, (type(self), self.template, self.parameters, self.values),
                self.__dict__)


def _option_error(cls: type[OptionError], template: str, parameters: tuple[str, ...],
                  values: dict[str, Any]) -> OptionError:
    return cls(template, *parameters, **values)


class CorpusFormatError(UserError):
    """A corpus file that cannot be read as a corpus (names the file, line and problem)."""


class DatasetUnavailableError(UserError, FileNotFoundError):
    """A data set's files are neither under the data root nor downloadable (text benchmarks,
    graph-classification and entity data sets alike); the message names the files expected,
    where they were looked for and where they come from.

    ``portable`` says the same with paths relative to the data root and the cache, for reports
    that are committed; it is the message itself where none is given.
    """

    def __init__(self, message: str, portable: str | None = None) -> None:
        super().__init__(message)
        self.portable = message if portable is None else portable


class InputError(UserError):
    """Documents to classify that cannot be read (``predict``)."""


class DocumentTypeError(InputError, TypeError):
    """A document that is not a string (``None``, NaN from an empty pandas cell, bytes, ...)."""


class ModelLoadError(UserError):
    """A saved model directory that is missing, incomplete, tampered with or malformed."""


class TokenizerError(UserError):
    """An unknown tokenizer name or option."""


class StopWordsError(UserError, LookupError):
    """An unknown stop-word language, an unreadable stop-word file or missing NLTK data."""


class DeviceError(OptionError):
    """A device that torch cannot use here (``--device cuda`` without CUDA, say)."""


class MissingExtraError(UserError):
    """A feature whose optional dependencies are not installed; names the pip extra."""


#: What the command is doing, innermost last (see :func:`phase`); failures name it.
_PHASES: list[str] = []

#: Failures of the machine rather than of the program: a full or read-only disk, no permission.
_RESOURCE_ERRNOS = {errno.ENOSPC: "no space left on device", errno.EDQUOT: "disk quota exceeded",
                    errno.EROFS: "read-only file system", errno.EACCES: "permission denied"}


@contextlib.contextmanager
def phase(name: str) -> Iterator[None]:
    """Name what the enclosed code does (``"training"``, ``"writing --save m"``), so that an
    out-of-memory or full-disk failure inside it says where it happened."""
    _PHASES.append(name)
    try:
        yield
    except BaseException as err:
        if not hasattr(err, "gfbgcn_phase"):  # the innermost phase, kept for the report
            err.gfbgcn_phase = name  # type: ignore[attr-defined]
        raise
    finally:
        _PHASES.pop()


def phase_of(err: BaseException) -> str | None:
    """The phase a failure happened in (recorded as it left :func:`phase`), if any."""
    return getattr(err, "gfbgcn_phase", None) or (_PHASES[-1] if _PHASES else None)


#: What torch's CPU allocator says when an allocation fails (a plain RuntimeError).
_ALLOCATOR_FAILURES = ("can't allocate memory", "CUDA out of memory")


def is_out_of_memory(err: BaseException) -> bool:
    """An allocation failure anywhere in the exception's chain: ``MemoryError`` (NumPy's
    ``_ArrayMemoryError`` too), ``torch.OutOfMemoryError`` on a device, torch's CPU allocator
    failing (a ``RuntimeError``), or ``ENOMEM`` (a fork or a map refused)."""
    seen: set[int] = set()
    link: BaseException | None = err
    while link is not None and id(link) not in seen:
        seen.add(id(link))
        if isinstance(link, MemoryError) or type(link).__name__ == "OutOfMemoryError":
            return True
        if isinstance(link, OSError) and link.errno == errno.ENOMEM:
            return True
        if isinstance(link, RuntimeError) and any(s in str(link) for s in _ALLOCATOR_FAILURES):
            return True
        link = link.__cause__ or link.__context__
    return False


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
        for code in (errno.ENOSPC, errno.EDQUOT):  # what wrapping libraries' messages keep
            if os.strerror(code) in text:
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


def one_line(message: str) -> str:
    """Collapse a (possibly multi-line, boxed) message into one line."""
    parts = [p.strip() for p in str(message).splitlines()]
    return " ".join(p for p in parts if p.strip("*=-")) or "(no message)"  # drop box rules


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
    """2 for bad input (a :class:`UserError`, a bad path, a missing data resource), else 1."""
    # ValueError: what NumPy/pandas readers raise on malformed input; a bare LookupError is
    # a missing data resource (NLTK's); KeyError and IndexError stay bugs.
    user = isinstance(err, (UserError, OSError, ValueError)) or type(err) is LookupError
    resource = is_out_of_memory(err) or _resource_errno(err) is not None
    return USER_ERROR if user or resource else INTERNAL_ERROR


def report(err: BaseException, where: str = "") -> int:
    """Print ``err`` in one line on standard error (``where``: a prefix of the message, e.g.
    ``"rank 1: "``); return the exit status."""
    from gfbgcn.core.streams import say  # a closed standard error must not raise here

    status = exit_status(err)
    if status == USER_ERROR:
        say(f"error: {where}{describe(err)}")
    else:
        say(f"error: {where}internal error ({type(err).__name__}: {describe(err)}); rerun "
            "with --debug (or GFBGCN_DEBUG=1) for the traceback and please report it")
    return status


@contextlib.contextmanager
def one_line_warnings() -> Iterator[None]:
    """Show warnings as ``warning: message`` lines on standard error (no source lines)."""
    def show(message, category, filename, lineno, file=None, line=None) -> None:
        print(f"warning: {one_line(str(message))}", file=sys.stderr)

    with warnings.catch_warnings():
        warnings.showwarning = show
        yield

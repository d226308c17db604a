"""Every error a user can cause, and the phase of the work a failure happened in.

A *user error* is bad input the user can fix: a file that is not there, a malformed corpus row,
an option out of range, an output that cannot be written, a model directory that does not load.
Each is a :class:`UserError` (or an ``OSError``, which bad paths give), with a one-line message
that names the Python parameter or the file at fault.  A programming error (a caller breaking a
function's contract) is a bare ``ValueError`` or ``TypeError``; the command line reports those
as internal errors (:mod:`gfbgcn.cli.runtime.failures`).  The task packages raise these
classes; this module imports none of them.
"""

from __future__ import annotations

import contextlib
import errno
from collections.abc import Callable, Iterator
from typing import Any


class UserError(ValueError):
    """Bad input that the user can fix; the message says what and where, in one line.

    A message that names settings is a template, as :class:`OptionError`'s is: its positional
    fields are Python parameters (``str(err)`` names them; the command line shows its options,
    :meth:`render`).  A plain message is used as it is.
    """

    def __init__(self, template: object = "", *parameters: str, **values: Any) -> None:
        self.template, self.parameters, self.values = str(template), parameters, values
        super().__init__(self.render(str))

    def render(self, spell: Callable[[str], str]) -> str:
        """The message with each parameter spelled by ``spell`` (``str``: its Python name)."""
        return _render(self.template, self.parameters, self.values, spell)


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

    def __reduce__(self) -> tuple[Any, ...]:
        # pickled (process pools) with its parameters, not as the rendered text alone
        return (_option_error, (type(self), self.template, self.parameters, self.values),
                self.__dict__)


def _option_error(cls: type[OptionError], template: str, parameters: tuple[str, ...],
                  values: dict[str, Any]) -> OptionError:
    return cls(template, *parameters, **values)


def _render(template: str, parameters: tuple[str, ...], values: dict[str, Any],
            spell: Callable[[str], str]) -> str:
    if not (parameters or values):
        return template
    return template.format(*(spell(p) for p in parameters), **values)


class ParameterWarning(UserWarning):
    """A warning that names settings, as an :class:`OptionError` does: a template whose
    positional fields are Python parameters (``str(warning)`` names them; the command line
    shows its options, :meth:`render`)."""

    def __init__(self, template: str, *parameters: str, **values: Any) -> None:
        self.template, self.parameters, self.values = template, parameters, values
        super().__init__(self.render(str))

    def render(self, spell: Callable[[str], str]) -> str:
        """The message with each parameter spelled by ``spell`` (``str``: its Python name)."""
        return _render(self.template, self.parameters, self.values, spell)


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
    """A device that torch cannot use here (``cuda`` without CUDA, say)."""


class MissingExtraError(UserError):
    """A feature whose optional dependencies are not installed; names the pip extra."""


#: What the command is doing, innermost last (see :func:`phase`); failures name it.
_PHASES: list[str] = []


@contextlib.contextmanager
def phase(name: str) -> Iterator[None]:
    """Name what the enclosed code does (``"training"``, ``"writing model m"``), so that an
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


def one_line(message: str) -> str:
    """Collapse a (possibly multi-line, boxed) message into one line."""
    parts = [p.strip() for p in str(message).splitlines()]
    return " ".join(p for p in parts if p.strip("*=-")) or "(no message)"  # drop box rules

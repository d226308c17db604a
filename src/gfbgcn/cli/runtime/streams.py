"""Standard streams that may close early or be closed from the start.

``gfbgcn train ... | grep -m1 accuracy``: when the reader of a pipe exits, the next write raises
``BrokenPipeError``. Printing is the least important thing a command does, so it must not cost
the results: :func:`closable_stdout` makes later writes to a closed standard output (and
standard error: the progress bar, warnings) do nothing, lets the command finish and write its
files, and leaves no "Exception ignored ... BrokenPipeError" at exit. The command then ends
quietly, as ``head`` expects of the programs before it.

``gfbgcn train --save m > /dev/full``: a standard output that fails otherwise (a full disk, a
size limit) is treated the same way while the command works, so the model is still saved; the
command then reports the lost output in one line (:func:`output_failure`) and exits with 2.

``gfbgcn train ... >&- 2>&- <&-``: a descriptor closed before Python starts leaves
``sys.stdout`` (etc.) ``None``; :func:`ensure_standard_streams` points such a descriptor at
the null device, so printing goes nowhere and worker processes inherit valid descriptors.

``PYTHONIOENCODING=ascii gfbgcn predict ... --text 'Fußball'`` (or a terminal in another
encoding): a label or a document that the stream's encoding cannot show would raise
``UnicodeEncodeError`` and lose the result for a printing problem.
:func:`printable_streams` makes standard output and error escape such characters
(``\\xdf``, ``\\u9280``) instead, and says so once; files are always written in UTF-8.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys
from collections.abc import Iterator
from typing import Any, TextIO

from gfbgcn.core.errors import UserError


class _ClosableStream:
    """A text stream whose writes stop, silently, once its reader has gone; and, once a write
    fails otherwise (a full disk, a size limit), stop too and keep the error in :attr:`failure`
    for the command to report after its work is done."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self.closed_by_reader = False
        self.failure: OSError | None = None

    def write(self, text: str) -> int:
        if not self._stopped:
            try:
                return self._stream.write(text)
            except OSError as err:
                self._failed(err)
        return len(text)

    def flush(self) -> None:
        if not self._stopped:
            try:
                self._stream.flush()
            except OSError as err:
                self._failed(err)

    @property
    def _stopped(self) -> bool:
        return self.closed_by_reader or self.failure is not None

    def _failed(self, err: OSError) -> None:
        if isinstance(err, BrokenPipeError) or err.errno == errno.EPIPE:
            self.closed_by_reader = True
        else:
            self.failure = err
        try:  # later flushes (interpreter exit included) go nowhere instead of failing
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self._stream.fileno())
            os.close(devnull)
        except (OSError, ValueError, AttributeError):
            pass

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


_STANDARD = ((0, "stdin", "r"), (1, "stdout", "w"), (2, "stderr", "w"))


def _is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def ensure_standard_streams() -> None:
    """Give every closed standard descriptor (0, 1, 2) the null device, and every standard
    stream Python left ``None`` (its descriptor was closed at start-up) a stream on it."""
    for fd, name, mode in _STANDARD:
        if not _is_open(fd):
            null = os.open(os.devnull, os.O_RDWR)  # the lowest free descriptor: fd itself
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
        if getattr(sys, name) is None:
            stream = open(fd, mode, encoding="utf-8", errors="replace",  # noqa: SIM115
                          closefd=False, buffering=1 if mode == "w" else -1)
            setattr(sys, name, stream)


@contextlib.contextmanager
def closable_stdout() -> Iterator[_ClosableStream]:
    """Within the block, ``sys.stdout`` and ``sys.stderr`` survive their readers closing the
    pipe (standard error carries the progress bar and warnings: losing them must not lose
    the results either) and any other failed write (``> /dev/full``): the command finishes
    and writes its files; the yielded stream's ``failure`` says whether printing failed."""
    original, original_err = sys.stdout, sys.stderr
    guarded = _ClosableStream(original)
    sys.stdout = guarded
    sys.stderr = _ClosableStream(original_err)
    try:
        yield guarded
    finally:
        sys.stdout, sys.stderr = original, original_err


def output_failure(stream: _ClosableStream) -> UserError | None:
    """The error to report for a standard output whose writes failed, if they did."""
    err = stream.failure
    if err is None:
        return None
    return UserError(f"writing standard output: {err.strerror or err}; the command's work and "
                     "its files are complete, only what it printed was lost")


#: Encodings that can show every character: no escaping needed.
_UNIVERSAL = ("utf-8", "utf8", "utf-16", "utf-32", "gb18030")


def printable_streams() -> None:
    """Standard output and error escape what their encoding cannot show (Python's
    ``backslashreplace``) instead of failing; a one-line note on standard error says so when
    either stream is not in a Unicode encoding."""
    escaped = []
    for stream in (sys.stdout, sys.stderr):
        encoding = (getattr(stream, "encoding", None) or "").lower().replace("_", "-")
        reconfigure = getattr(stream, "reconfigure", None)
        if not encoding or encoding in _UNIVERSAL or reconfigure is None:
            continue
        try:
            reconfigure(errors="backslashreplace")
        except (ValueError, OSError):  # a detached or closed stream: nothing to print to
            continue
        escaped.append(encoding)
    if escaped:
        say(f"note: standard output is in {escaped[0]}: characters it cannot show are "
            "escaped (\\xNN, \\uNNNN); files are written in UTF-8")


def say(text: str, stream: TextIO | None = None) -> None:
    """Print one line on ``stream`` (standard error by default), or nothing where it cannot
    be written (a closed or broken stream): a message must never fail the command."""
    try:
        print(text, file=stream or sys.stderr, flush=True)
    except (OSError, ValueError, AttributeError):
        pass

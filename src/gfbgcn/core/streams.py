"""Standard output that may close early: ``gfbgcn train ... | grep -m1 accuracy``.

When the reader of a pipe exits, the next write raises ``BrokenPipeError``. Printing is the
least important thing a command does, so it must not cost the results: :func:`closable_stdout`
makes later writes to a closed standard output do nothing, lets the command finish and write
its files, and leaves no "Exception ignored ... BrokenPipeError" at exit. The command then ends
quietly, as ``head`` expects of the programs before it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys
from collections.abc import Iterator
from typing import Any, TextIO


class _ClosableStream:
    """A text stream whose writes stop, silently, once its reader has gone."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self.closed_by_reader = False

    def write(self, text: str) -> int:
        if not self.closed_by_reader:
            try:
                return self._stream.write(text)
            except BrokenPipeError:
                self._reader_gone()
            except OSError as err:
                if err.errno != errno.EPIPE:
                    raise
                self._reader_gone()
        return len(text)

    def flush(self) -> None:
        if not self.closed_by_reader:
            try:
                self._stream.flush()
            except (BrokenPipeError, OSError) as err:
                if isinstance(err, BrokenPipeError) or err.errno == errno.EPIPE:
                    self._reader_gone()
                else:
                    raise

    def _reader_gone(self) -> None:
        self.closed_by_reader = True
        try:  # later flushes (interpreter exit included) go nowhere instead of failing
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self._stream.fileno())
            os.close(devnull)
        except (OSError, ValueError, AttributeError):
            pass

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextlib.contextmanager
def closable_stdout() -> Iterator[_ClosableStream]:
    """Within the block, ``sys.stdout`` survives its reader closing the pipe."""
    original = sys.stdout
    guarded = _ClosableStream(original)
    sys.stdout = guarded  # type: ignore[assignment]
    try:
        yield guarded
    finally:
        sys.stdout = original

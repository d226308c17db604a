"""``kill PID`` (SIGTERM) and a closed terminal (SIGHUP) end a command as Ctrl-C does.

Python's default action for both is to die at once: a model or cache being written stays
behind as a temporary file. Within :func:`signals_as_exceptions` they raise
:class:`Terminated` instead, so every ``finally`` and ``except BaseException`` on the way out
runs: atomic writes remove their temporaries, directories being written are deleted, the
results already in place are left as they were. ``kill -9`` cannot be caught; what it leaves
is removed by the next write in that folder (:func:`gfbgcn.core.io.remove_abandoned`).
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator
from types import FrameType

#: The signals handled, by name for messages.
SIGNALS: dict[int, str] = {signal.SIGTERM: "terminated"}
if hasattr(signal, "SIGHUP"):  # not on Windows
    SIGNALS[signal.SIGHUP] = "hung up"


class Terminated(BaseException):
    """A signal asked the command to stop (a ``BaseException``: no ``except Exception``
    catches it on the way out)."""

    def __init__(self, signum: int) -> None:
        super().__init__(SIGNALS.get(signum, f"signal {signum}"))
        self.signum = signum

    @property
    def exit_status(self) -> int:
        return 128 + self.signum  # what a shell reports for a process the signal ended


#: The process that installed the handlers: a forked worker (a pool's, a DataLoader's) inherits
#: them, but its parent stops it with SIGTERM and expects it to die at once, as by default.
_OWNER: list[int] = []


def _raise(signum: int, frame: FrameType | None) -> None:
    if os.getpid() not in _OWNER:
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
        return
    raise Terminated(signum)


@contextlib.contextmanager
def signals_as_exceptions() -> Iterator[None]:
    """Within the block, SIGTERM and SIGHUP raise :class:`Terminated` (main thread only; a
    signal someone else already handles keeps its handler); the handlers are restored after."""
    previous: dict[int, object] = {}
    _OWNER.append(os.getpid())
    if threading.current_thread() is threading.main_thread():
        for signum in SIGNALS:
            if signal.getsignal(signum) is signal.SIG_DFL:
                previous[signum] = signal.signal(signum, _raise)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)  # type: ignore[arg-type]
        _OWNER.pop()

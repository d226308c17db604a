"""Pool workers die with the command, also when Ctrl-C arrives while the pool is starting."""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import time

import pytest

from gfbgcn.core.processes import worker_pool

pytestmark = pytest.mark.skipif("fork" not in mp.get_all_start_methods(), reason="fork (POSIX)")


@pytest.fixture(autouse=True)
def _ctrl_c_raises():
    """Python's own SIGINT handler, as under a terminal: a background job of a non-interactive
    shell (some CI runners) starts with SIGINT ignored, and then Ctrl-C reaches nothing."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


class _CtrlCWhileStarting:
    """A fork context whose ``Pool()`` gets Ctrl-C right after starting its workers, before it
    returns: where a ``KeyboardInterrupt`` raised there would orphan the workers."""

    def __init__(self) -> None:
        self.real = mp.get_context("fork")
        self.pool = None

    def Pool(self, *args, **kwargs):  # noqa: N802 - the multiprocessing name
        self.pool = self.real.Pool(*args, **kwargs)
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.2)  # undeferred, the KeyboardInterrupt would be raised in here
        return self.pool


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] not in "ZX"
    except OSError:
        return True


def test_ctrl_c_while_the_pool_starts_terminates_its_workers():
    # other threads may take the signal from the kernel (torch's, a leftover pool's): Python
    # still runs the handler in the main thread, so the deferral must hold whoever receives it
    import threading

    stop = threading.Event()
    helper = threading.Thread(target=stop.wait, daemon=True)
    helper.start()
    context = _CtrlCWhileStarting()
    with pytest.raises(KeyboardInterrupt):
        with worker_pool(context, 2):
            pytest.fail("the held-back Ctrl-C must be raised on entering the block")
    pids = [p.pid for p in context.pool._pool]
    assert len(pids) == 2
    deadline = time.monotonic() + 10
    while any(map(_alive, pids)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(map(_alive, pids)), "a worker outlived the interrupted pool"
    stop.set()
    # and this process takes Ctrl-C as before afterwards
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_pool_runs_tasks_and_its_workers_ignore_ctrl_c():
    with worker_pool(mp.get_context("fork"), 2) as pool:
        assert pool.map(abs, [-1, -2, 3]) == [1, 2, 3]
        handlers = pool.map(_sigint_handler_name, range(2))
    assert set(handlers) == {"SIG_IGN"}


def _sigint_handler_name(_: int) -> str:
    handler = signal.getsignal(signal.SIGINT)
    return getattr(handler, "name", str(handler))


def _sigterm_handler_name(_: int) -> str:
    handler = signal.getsignal(signal.SIGTERM)
    return getattr(handler, "name", str(handler))


def test_a_worker_dies_of_sigterm_whichever_thread_receives_it():
    """The parent's Python handler for SIGTERM (the command line's) is not the workers': a
    worker blocked in the task queue's lock, its signal taken by another thread, would never
    run it, and the pool's terminate would wait for it forever."""
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: None)  # a Python handler
    try:
        with worker_pool(mp.get_context("fork"), 2) as pool:
            assert set(pool.map(_sigterm_handler_name, range(2))) == {"SIG_DFL"}
            pids = [p.pid for p in pool._pool]
        deadline = time.monotonic() + 10
        while any(map(_alive, pids)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(map(_alive, pids))
    finally:
        signal.signal(signal.SIGTERM, previous)

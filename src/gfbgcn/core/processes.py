"""Worker processes that never outlive the command that started them.

A pool's workers are forked children.  Left alone, a worker whose parent was killed
(``kill -9``, or ``SIGTERM``, whose default action gives the parent no chance to clean up) keeps
computing its task and then fails, much later, with a page of ``BrokenPipeError`` traceback;
and Ctrl-C, which the terminal sends to every process of the command, prints one
``KeyboardInterrupt`` traceback per worker.  Every pool of gfbgcn therefore starts its workers
with :func:`pool_options`:

* on Linux each worker asks the kernel to kill it when its parent dies
  (``prctl(PR_SET_PDEATHSIG, SIGKILL)``), and exits at once if the parent died before that;
* each worker ignores ``SIGINT``: the parent receives Ctrl-C, stops with one line, and its
  ``with Pool(...)`` block terminates the workers;
* each worker dies of ``SIGTERM`` and ``SIGHUP`` by the kernel's default action, not by a
  handler inherited from the parent (:func:`die_with_parent` says why).

:func:`worker_pool` is that pool, safe against a Ctrl-C that arrives while the pool is still
starting: Ctrl-C is noted, not raised, until the pool is inside its ``with`` block, because a
``KeyboardInterrupt`` raised inside ``Pool()`` leaves the workers already started (which ignore
``SIGINT``) with nobody to terminate them.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from multiprocessing.pool import Pool
from typing import Any

#: ``prctl`` option: the signal this process gets when its parent thread dies (linux/prctl.h).
PR_SET_PDEATHSIG = 1


def _kill_me_with_parent() -> None:
    """Linux: the kernel sends this process SIGKILL when its parent dies; elsewhere nothing."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError):  # no prctl here: the worker just may outlive a kill
        pass


#: Signals a pool's worker takes with the kernel's default action (death), whatever handler
#: the parent had installed (:mod:`gfbgcn.cli.runtime.termination`'s is a Python one).
DEFAULT_ACTION = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP")
                       if hasattr(signal, name))


def die_with_parent(parent: int) -> None:
    """A pool's ``initializer``: die with the parent process ``parent`` (its pid, taken in the
    parent), leave Ctrl-C to it, and die of ``SIGTERM`` (``Pool.terminate``) at once.

    The last because a Python handler runs only in the main thread, and only once that thread
    runs Python again: a worker waiting in the task queue's lock (which ``Pool.terminate``
    holds) whose ``SIGTERM`` the kernel handed to another of its threads (torch's, OpenMP's)
    never got there, and ``terminate`` waited for it forever (seen on 2026-12-03: an ``--auto``
    search stuck 15 minutes in the graph build's pool).  The default action kills the whole
    process, whichever thread receives the signal."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for signum in DEFAULT_ACTION:
        signal.signal(signum, signal.SIG_DFL)
    _kill_me_with_parent()
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)


def pool_options() -> dict[str, Any]:
    """``initializer`` and ``initargs`` of a ``multiprocessing`` pool whose workers never
    outlive this process: ``ctx.Pool(n, **pool_options())``."""
    return {"initializer": die_with_parent, "initargs": (os.getpid(),)}


def _defer_sigint() -> tuple[Any, list[int]] | None:
    """Replace the ``SIGINT`` handler by one that only notes the signal (the main thread only:
    Python delivers every signal's handler there, whichever thread the kernel picked, so a
    thread's signal mask is not enough); the previous handler and the notes, or ``None``."""
    if threading.current_thread() is not threading.main_thread():
        return None
    noted: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: noted.append(signum))
    return previous, noted


def _restore_sigint(deferred: tuple[Any, list[int]] | None) -> None:
    """Put the previous handler back and give it a Ctrl-C that came meanwhile."""
    if deferred is None:
        return
    previous, noted = deferred
    signal.signal(signal.SIGINT, previous)
    if noted and callable(previous):
        previous(signal.SIGINT, None)  # Python's default handler raises KeyboardInterrupt
    elif noted and previous == signal.SIG_DFL:
        raise KeyboardInterrupt


@contextmanager
def worker_pool(context: Any, processes: int) -> Iterator[Pool]:
    """``with worker_pool(mp.get_context("fork"), n) as pool``: a pool whose workers never
    outlive this process (:func:`pool_options`), terminated on leaving the block, even when
    Ctrl-C arrives while its workers are being started."""
    deferred = _defer_sigint()
    try:
        pool = context.Pool(processes, **pool_options())
    except BaseException:
        if deferred is not None:
            signal.signal(signal.SIGINT, deferred[0])
        raise
    with pool:  # from here on, an exception (KeyboardInterrupt included) terminates the pool
        _restore_sigint(deferred)
        yield pool


def _start_worker(parent: int, setup: Any, setup_args: tuple[Any, ...]) -> None:
    """Initializer of :func:`worker_executor`'s workers: die with the parent, then ``setup``."""
    die_with_parent(parent)
    if setup is not None:
        setup(*setup_args)


@contextmanager
def worker_executor(context: Any, processes: int, setup: Any = None,
                    setup_args: tuple[Any, ...] = ()) -> Iterator[ProcessPoolExecutor]:
    """``with worker_executor(mp.get_context("spawn"), n) as ex``: a process pool whose workers
    never outlive this process (as :func:`worker_pool`'s) and that never hangs on a dead worker.

    Unlike ``multiprocessing.Pool``, whose ``imap`` waits forever for the task of a worker that
    was killed (the kernel's out-of-memory killer, a CUDA driver abort), a
    :class:`~concurrent.futures.ProcessPoolExecutor` fails every pending future with
    ``BrokenProcessPool``.  ``setup(*setup_args)`` runs once in each worker after it starts
    (e.g. to bound its share of a GPU's memory).  Leaving the block with an exception (Ctrl-C
    included) cancels the queued tasks and kills the workers instead of waiting for them.
    """
    deferred = _defer_sigint()
    try:
        executor = ProcessPoolExecutor(processes, mp_context=context, initializer=_start_worker,
                                       initargs=(os.getpid(), setup, setup_args))
    except BaseException:
        if deferred is not None:
            signal.signal(signal.SIGINT, deferred[0])
        raise
    try:
        _restore_sigint(deferred)
        yield executor
    except BaseException:
        executor.shutdown(wait=False, cancel_futures=True)
        _kill_workers(executor)
        raise
    executor.shutdown(wait=True)


def _kill_workers(executor: ProcessPoolExecutor) -> None:
    """Kill ``executor``'s worker processes (they ignore Ctrl-C and would finish their task)."""
    kill = getattr(executor, "kill_workers", None)  # Python >= 3.14
    if kill is not None:
        kill()
        return
    # Before 3.14 the executor keeps its processes only in this private mapping.
    for process in list((getattr(executor, "_processes", None) or {}).values()):
        with contextlib.suppress(Exception):  # already gone
            process.kill()


_SHARED: Any = None  # what the workers of forked_map read (inherited by fork, not pickled)


def _run_shared(task: tuple[Callable[..., Any], tuple[Any, ...]]) -> Any:
    work, args = task
    return work(_SHARED, *args)


def forked_map(work: Callable[..., Any], shared: Any, tasks: Sequence[tuple[Any, ...]],
               workers: int, meanwhile: Callable[[], None] | None = None) -> list[Any]:
    """``[work(shared, *args) for args in tasks]`` in ``workers`` forked processes
    (:func:`worker_pool`), one task at a time each, in the order given.

    The workers inherit ``shared`` (documents, a vocabulary, a closure over a sparse matrix)
    through fork instead of receiving a pickled copy per task; ``work`` must be a module-level
    function and the tasks and results picklable.  ``meanwhile``, when given, runs in this
    process after the workers were forked and before their results are collected: other work
    overlaps theirs without a thread (forking a process whose other threads are busy is not
    safe).  POSIX only (fork)."""
    global _SHARED
    _SHARED = shared
    try:
        with worker_pool(multiprocessing.get_context("fork"), workers) as pool:
            pending = pool.map_async(_run_shared, [(work, tuple(t)) for t in tasks],
                                     chunksize=1)
            if meanwhile is not None:
                meanwhile()
            return pending.get()
    finally:
        _SHARED = None

"""Under ``torchrun``, one process speaks for the command: what a failure prints, and where.

``torchrun`` starts the same command in every process (its *ranks*).  Those meet the same bad
option or corpus at the same moment, so rank 0 alone reports a failure; and when rank 0 stops,
the others, waiting for it, fail with "connection closed by peer", which is no news.  So, with
torchrun's key-value store (hosted by the torchrun agent, it outlives every rank):

* rank 0 reports its failure in one line as usual, posts its exit status in the store, closes
  its process group (so a rank waiting for it in a collective stops waiting), and waits a few
  seconds for the other ranks to stop before it exits itself: torchrun then sees every rank
  end with the same status instead of terminating the others;
* another rank that fails waits a few seconds for rank 0's status: when rank 0 failed too, it
  says so in the store and ends at once (``os._exit``) with that status, silently; otherwise
  (a failure of its own) it reports it, as ``error: rank N: ...``;
* a rank whose peer vanished without a word (killed) reports as usual.

Only ``WORLD_SIZE``, ``RANK`` and torchrun's store variables are read from the environment;
outside torchrun :func:`report_failure` is :func:`gfbgcn.cli.runtime.failures.report`.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

#: How long another rank waits for rank 0's status before speaking for itself (seconds).
WAIT_FOR_RANK_ZERO = 10.0


def torchrun_rank() -> tuple[int, int]:
    """``(rank, world size)`` of this process as torchrun started it; ``(0, 1)`` otherwise."""
    try:
        world = int(os.environ.get("WORLD_SIZE", "1"))
        rank = int(os.environ.get("RANK", "0"))
    except ValueError:
        return 0, 1
    return (rank, world) if world > 1 else (0, 1)


def _store(timeout: float) -> Any:
    """A client of torchrun's agent store, or ``None`` (not torchrun's, or unreachable)."""
    if os.environ.get("TORCHELASTIC_USE_AGENT_STORE", "").lower() != "true":
        return None  # the store lives in rank 0 and dies with it: nothing to read there
    try:
        import torch.distributed as dist

        return dist.TCPStore(os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"]),
                             is_master=False, timeout=timedelta(seconds=timeout),
                             wait_for_workers=False)
    except Exception:  # noqa: BLE001 - no store, no coordination: each rank speaks
        return None


def _key(name: str) -> str:
    run = os.environ.get("TORCHELASTIC_RUN_ID", "")
    attempt = os.environ.get("TORCHELASTIC_RESTART_COUNT", "0")
    return f"gfbgcn/{run}/{attempt}/{name}"


def _close_group() -> None:
    """Destroy this process's group: ranks blocked in a collective with it fail now."""
    try:
        import torch.distributed as dist

        if dist.is_available() and dist.is_initialized():
            dist.destroy_process_group()
    except Exception:  # noqa: BLE001 - they fail anyway once this process exits
        pass


def _stop_together(status: int, others: int, wait: float) -> None:
    """Rank 0: post ``status``, release the other ranks and wait (up to ``wait`` s) until
    ``others`` of them have stopped."""
    store = _store(5.0)
    if store is None:
        return
    # torchrun terminates the others as soon as one ends: end with the same status then too
    signal.signal(signal.SIGTERM, lambda *_: _end(status))
    try:
        store.set(_key("rank0-exit"), str(status))
        _close_group()
        deadline = time.monotonic() + wait
        while store.add(_key("stopped"), 0) < others and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.5)  # their os._exit follows their count at once
    except Exception:  # noqa: BLE001 - the others then speak for themselves
        pass


def _rank_zero_status(wait: float) -> int | None:
    """Rank 0's exit status once it has failed (waiting up to ``wait`` s), else ``None``."""
    store = _store(wait)
    if store is None:
        return None
    try:
        store.wait([_key("rank0-exit")], timedelta(seconds=wait))
        status = int(store.get(_key("rank0-exit")))
        store.add(_key("stopped"), 1)
    except Exception:  # noqa: BLE001 - timed out: rank 0 did not fail
        return None
    return status


def report_failure(err: BaseException, report: Callable[..., int],
                   wait: float = WAIT_FOR_RANK_ZERO) -> int:
    """Report ``err`` (with ``report(err, where="")``, which prints one line and returns the
    exit status) as this rank should; return the exit status."""
    rank, world = torchrun_rank()
    if world == 1:
        return report(err)
    if rank == 0:
        status = report(err)
        _stop_together(status, world - 1, wait)
        return status
    posted = _rank_zero_status(wait)
    if posted is not None:  # rank 0 has said it, and waits for this process to end: now
        _end(posted)
    return report(err, where=f"rank {rank}: ")


def _end(status: int) -> None:
    """End this process now with ``status`` (what it printed flushed; nothing else to do)."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)

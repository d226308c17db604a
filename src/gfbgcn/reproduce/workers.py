"""The worker processes of a reproduction grid (:func:`gfbgcn.reproduce.harness.run_pending`).

On the CPU the workers are forked and inherit the run function (and whatever it closes over,
such as a loaded graph).  On a CUDA device they are spawned, because a child forked from a
process that used CUDA cannot use it: the run function is pickled to them, and each may
allocate at most :func:`gpu_memory_fraction` of the card, so that one worker's peak cannot
starve the others.  Failures never hang the grid: a run that raises ends it with that error
naming the run (:class:`WorkerRunError` for a CUDA fault or a bug), a worker that dies ends it
with :class:`WorkerDiedError` (:func:`gfbgcn.core.processes.worker_executor`).
"""

from __future__ import annotations

import multiprocessing as mp
import pickle
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import as_completed
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Protocol

import torch

from gfbgcn.core.errors import UserError, is_out_of_memory, one_line
from gfbgcn.core.processes import worker_executor
from gfbgcn.core.runinfo import set_threads


class Task(Protocol):
    """One run of a grid: anything with a JSON-able ``key()`` (and picklable, for workers)."""

    def key(self) -> dict[str, Any]: ...


RUNNER: dict[str, Any] = {}  # the run function: inherited by forked workers, sent to spawned


class WorkerRunError(RuntimeError):
    """A run that failed in a grid's worker process for a reason other than bad input (a CUDA
    fault, a bug): the message names the run and the worker's exception."""


class WorkerDiedError(UserError):
    """A worker process of a grid ended abruptly (killed by the system, most often for memory);
    the runs finished before it are saved, and running the command again resumes."""


def _setup_worker(run: Callable[[Any], dict[str, Any]] | None, threads: int | None,
                  device: str | None, memory_fraction: float | None) -> None:
    """Initializer of a grid's worker: its run function (spawned workers get it pickled; forked
    ones inherit ``RUNNER``), its torch threads and, on a shared GPU, its memory bound."""
    if run is not None:
        RUNNER.update(run=run, threads=threads)
    if device is not None and memory_fraction is not None:
        # Past its share the caching allocator raises OutOfMemoryError in this worker instead
        # of starving the others on the card.
        torch.cuda.set_per_process_memory_fraction(memory_fraction, torch.device(device))


def call(task: Task) -> tuple[Task, dict[str, Any]]:
    set_threads(RUNNER["threads"])
    return task, RUNNER["run"](task)


def gpu_memory_fraction(workers: int) -> float:
    """Each of ``workers`` processes sharing one GPU may allocate this fraction of its memory
    (5 % left to the CUDA contexts themselves, which the allocator does not count)."""
    return 0.95 / max(1, workers)


def _is_cuda(device: str | torch.device | None) -> bool:
    return device is not None and torch.device(device).type == "cuda"


def run_in_workers(todo: Sequence[Task], run: Callable[[Any], dict[str, Any]],
                    save: Callable[[Task, dict[str, Any]], None], workers: int,
                    threads: int | None, device: str | torch.device | None, desc: str) -> None:
    """Run ``todo`` in ``workers`` processes (:func:`_worker_start` says how they start) and
    ``save(task, record)`` each record in this process as it arrives."""
    context, setup = _worker_start(run, threads, device, workers)
    if context.get_start_method() != "fork":
        try:
            pickle.dumps(run)
        except Exception as err:  # noqa: BLE001 - whatever pickling raises: a programming error
            raise TypeError(f"{desc}: a run function sent to spawned workers must be picklable "
                            f"({type(err).__name__}: {err})") from err
    with worker_executor(context, workers, _setup_worker, setup) as executor:
        futures = {executor.submit(call, task): task for task in todo}
        for future in as_completed(futures):
            task = futures[future]
            try:
                save(*future.result())
            except BrokenProcessPool as err:
                raise WorkerDiedError(
                    f"{desc}: a worker process died while running "
                    f"{_describe_key(task.key())} (killed by the system, most often for lack of "
                    "memory: try fewer worker processes); finished runs are saved, run the command "
                    "again to resume") from err
            except Exception as err:
                where = f"running {_describe_key(task.key())} in a worker"
                if isinstance(err, UserError) or is_out_of_memory(err):
                    if not hasattr(err, "gfbgcn_phase"):  # the one-line report names the run
                        err.gfbgcn_phase = where  # type: ignore[attr-defined]
                    raise
                # A CUDA fault or a bug: reported (as an internal error) with the run it hit.
                raise WorkerRunError(f"{desc}: {where}: {type(err).__name__}: "
                                     f"{one_line(str(err))}") from err


def _worker_start(run: Callable[[Any], dict[str, Any]], threads: int | None,
                  device: str | torch.device | None, workers: int) -> tuple[Any, tuple[Any, ...]]:
    """How a grid's workers start: the multiprocessing context and :func:`_setup_worker`'s
    arguments.  On the CPU: forked, inheriting ``run``.  On a CUDA device: spawned (CUDA cannot
    be used in a child forked from a process that used it), sent ``run``, with a memory bound."""
    if _is_cuda(device):
        return mp.get_context("spawn"), (run, threads, str(device), gpu_memory_fraction(workers))
    return mp.get_context("fork"), (None, threads, None, None)


def _describe_key(key: Mapping[str, Any]) -> str:
    return " ".join(f"{name}={value}" for name, value in key.items())

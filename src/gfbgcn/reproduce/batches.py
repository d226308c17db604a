"""Runs of a grid that train together, one call for several records (batched training).

:func:`run_pending_batches` is :func:`~gfbgcn.reproduce.harness.run_pending` for runs that a
wing trains as one model (e.g. the graph-classification configurations of one fold:
:func:`gfbgcn.graph_classification.batched.train_batch`): the same store, keys and records,
one record per run saved as its batch ends, so an interrupted grid resumes where it stopped and
its records are those of the runs one by one, only made in fewer calls.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import torch

from gfbgcn.reproduce.harness import pending, run_units
from gfbgcn.reproduce.store import RunStore
from gfbgcn.reproduce.workers import Task


@dataclass(frozen=True)
class TaskBatch:
    """Tasks that run in one call: one unit of the run loop."""

    tasks: tuple[Task, ...]

    def key(self) -> dict[str, Any]:
        """The first task's key and how many tasks run with it (names the batch in the
        progress bar and in a worker's error)."""
        return {**self.tasks[0].key(), "batch": len(self.tasks)}


def task_batches(tasks: Iterable[Task], group: Callable[[Any], Hashable], size: int
                 ) -> list[TaskBatch]:
    """``tasks`` in batches of at most ``size`` with one ``group(task)`` each: the groups in
    the order of their first task, each group's tasks in their order."""
    if size < 1:
        raise ValueError(f"size must be >= 1, got {size}")
    groups: dict[Hashable, list[Task]] = {}
    for task in tasks:
        groups.setdefault(group(task), []).append(task)
    return [TaskBatch(tuple(members[i:i + size]))
            for members in groups.values() for i in range(0, len(members), size)]


def run_pending_batches(
    tasks: Iterable[Task],
    store: RunStore,
    run_batch: Callable[[list[Any]], list[dict[str, Any]]],
    *,
    group: Callable[[Any], Hashable],
    size: int,
    workers: int = 1,
    threads: int | None = 1,
    desc: str = "runs",
    on_saved: Callable[[Task, dict[str, Any]], None] | None = None,
    device: str | torch.device | None = None,
) -> int:
    """Run every task not yet in ``store``, ``size`` or fewer of one ``group`` at a time
    (:func:`task_batches`): ``run_batch(tasks)`` returns their records in order, each saved
    under its task's key.  A batch leaves out its tasks finished meanwhile by another process
    sharing the store.  ``workers``, ``threads``, ``device``: as for
    :func:`~gfbgcn.reproduce.harness.run_pending` (a worker runs a whole batch).  Returns the
    number of runs made."""
    todo = pending(tasks, store)
    done = 0

    def run(batch: TaskBatch) -> dict[str, Any]:
        left = [i for i, task in enumerate(batch.tasks) if not store.done(task.key())]
        records: list[dict[str, Any] | None] = [None] * len(batch.tasks)  # None: not run here
        if left:
            for i, record in zip(left, run_batch([batch.tasks[i] for i in left]), strict=True):
                records[i] = record
        return {"records": records}

    def save(batch: TaskBatch, result: dict[str, Any]) -> int:
        nonlocal done
        made = 0
        for task, record in zip(batch.tasks, result["records"]):
            if record is None:
                continue
            store.save(task.key(), record)
            made += 1
            if on_saved is not None:
                on_saved(task, record)
        done += made
        return len(batch.tasks)  # the progress bar counts the runs dealt with

    batches: Sequence[TaskBatch] = task_batches(todo, group, size)
    run_units(batches, run, save, runs=len(todo), skip=lambda _: False, workers=workers,
              threads=threads, desc=desc, device=device)
    return done


__all__ = ["TaskBatch", "run_pending_batches", "task_batches"]

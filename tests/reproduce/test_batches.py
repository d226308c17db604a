"""Runs that train together: batches of one group, one record per run in the store, resumable,
in order or in worker processes, and runs finished meanwhile left out of their batch."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import torch

from gfbgcn.reproduce.batches import TaskBatch, run_pending_batches, task_batches
from gfbgcn.reproduce.store import RunStore
from tests.reproduce.test_harness import Square


@pytest.fixture(autouse=True)
def _restore_threads() -> Iterator[None]:
    before = torch.get_num_threads()
    yield
    torch.set_num_threads(before)


def parity(task: Square) -> int:
    return task.n % 2


def squares(tasks: list[Square]) -> list[dict[str, Any]]:
    """One call for several records (each says which tasks shared its call)."""
    together = [t.n for t in tasks]
    return [{"value": t.n * t.n, "with": together, "pid": os.getpid()} for t in tasks]


def test_batches_hold_one_group_at_most_size_tasks_in_order() -> None:
    tasks = [Square(n) for n in range(7)]
    batches = task_batches(tasks, parity, 3)
    assert [[t.n for t in b.tasks] for b in batches] == [[0, 2, 4], [6], [1, 3, 5]]
    assert batches[1].key() == {"tag": "sq", "n": 6, "batch": 1}
    assert task_batches(tasks, parity, 1) == [TaskBatch((t,)) for t in
                                              [Square(n) for n in (0, 2, 4, 6, 1, 3, 5)]]
    with pytest.raises(ValueError, match="size"):
        task_batches(tasks, parity, 0)


def test_every_run_saved_under_its_key_and_a_rerun_makes_none(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    store.save(Square(2).key(), {"value": "kept"})
    calls: list[list[int]] = []
    saved: list[int] = []

    def run(tasks: list[Square]) -> list[dict[str, Any]]:
        calls.append([t.n for t in tasks])
        return squares(tasks)

    tasks = [Square(n) for n in range(6)]
    made = run_pending_batches(tasks, store, run, group=parity, size=2,
                               on_saved=lambda t, r: saved.append(t.n))
    assert made == 5 and calls == [[0, 4], [1, 3], [5]] and saved == [0, 4, 1, 3, 5]
    assert store.load(Square(2).key())["value"] == "kept"
    assert store.load(Square(4).key()) == {"key": Square(4).key(), "value": 16, "with": [0, 4],
                                           "pid": os.getpid()}
    assert run_pending_batches(tasks, store, run, group=parity, size=2) == 0 and len(calls) == 3


def test_two_workers_make_the_same_records(tmp_path: Path) -> None:
    tasks = [Square(n) for n in range(6)]
    one, two = RunStore(tmp_path / "one"), RunStore(tmp_path / "two")
    assert run_pending_batches(tasks, one, squares, group=parity, size=2) == 6
    assert run_pending_batches(tasks, two, squares, group=parity, size=2, workers=2) == 6

    def without_pid(store: RunStore) -> list[dict[str, Any]]:
        return [{k: v for k, v in r.items() if k != "pid"} for r in store.records()]

    assert without_pid(two) == without_pid(one)
    assert {r["pid"] for r in two.records()} != {os.getpid()}  # run in the workers


def test_a_run_finished_meanwhile_is_left_out_of_its_batch(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    calls: list[list[int]] = []

    def run(tasks: list[Square]) -> list[dict[str, Any]]:
        calls.append([t.n for t in tasks])
        if len(calls) == 1:  # another process sharing the store finishes 3 meanwhile
            store.save(Square(3).key(), {"value": "theirs"})
        return squares(tasks)

    tasks = [Square(n) for n in range(6)]
    assert run_pending_batches(tasks, store, run, group=parity, size=3) == 5
    assert calls == [[0, 2, 4], [1, 5]]
    assert store.load(Square(3).key())["value"] == "theirs"
    assert store.load(Square(5).key())["with"] == [1, 5]

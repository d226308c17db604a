"""The reproduction harness: the per-data-set loop of every verb and ``--report-only``, result
layout, portable command lines, the resumable (optionally multi-process) run loop, the
invocation log and the report throttle."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import torch

from gfbgcn.core.errors import OptionError, UserError
from gfbgcn.reproduce import harness, workers
from gfbgcn.reproduce.store import RunStore


@pytest.fixture(autouse=True)
def _restore_threads():
    """run_pending sets torch's thread count of the process that runs the tasks."""
    before = torch.get_num_threads()
    yield
    torch.set_num_threads(before)


@dataclass(frozen=True)
class Square:
    """A trivial picklable task."""

    n: int
    tag: str = "sq"

    def key(self) -> dict[str, Any]:
        return {"tag": self.tag, "n": self.n}


def square(task: Square) -> dict[str, Any]:
    return {"value": task.n * task.n, "pid": os.getpid()}


# ---- command lines ---------------------------------------------------------------------------


def _invocation(*argv: str) -> harness.Invocation:
    return harness.Invocation(harness.command_line(argv))


def test_command_line_drops_data_dir_in_both_spellings() -> None:
    words = ["reproduce", "text", "--data-dir", "/secret/data", "--models", "gcn",
             "--data-dir=/other/data", "--seeds", "2"]
    assert harness.command_line(words) == "gfbgcn reproduce text --models gcn --seeds 2"


def test_command_line_makes_paths_under_the_cwd_relative(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    inside = tmp_path / "results" / "run 1"
    words = ["reproduce", "graphs", "--out", str(inside), "--datasets", "MUTAG"]
    assert harness.command_line(words) == "gfbgcn reproduce graphs --out 'results/run 1' " \
        "--datasets MUTAG"
    # outside the working directory only the last component is kept: no machine path
    outside = harness.command_line(["reproduce", "text", "--out", "/elsewhere/deep/res"])
    assert outside == "gfbgcn reproduce text --out res"
    assert harness.portable("relative/path") == "relative/path"
    assert harness.portable(str(tmp_path)) == "."
    assert harness.command_line([]) == "gfbgcn"


def test_command_line_makes_paths_portable_in_flag_equals_value_form(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    words = ["reproduce", "text", f"--out={tmp_path / 'results'}"]
    assert str(tmp_path) not in harness.command_line(words)


# ---- layout and options ------------------------------------------------------------------------


def test_layout(tmp_path: Path) -> None:
    layout = harness.Layout(tmp_path, "graphs")
    assert layout.report == tmp_path / "graphs.md"
    assert layout.raw == tmp_path / "raw" / "graphs"
    assert layout.figures == tmp_path / "figures"
    assert layout.notes == tmp_path / "graphs_notes.md"
    assert layout.store().root == layout.raw
    assert layout.read_notes() == ""
    layout.notes.write_text("\n  Hand-written.\n\n", encoding="utf-8")
    assert layout.read_notes() == "Hand-written."


# ---- the run loop ----------------------------------------------------------------------------


def test_pending_skips_stored_and_duplicate_tasks(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    store.save(Square(1).key(), {"value": 1})
    todo = harness.pending([Square(0), Square(1), Square(2), Square(0)], store)
    assert todo == [Square(0), Square(2)]


def test_run_pending_saves_every_record_and_skips_stored_tasks(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    store.save(Square(3).key(), {"value": "kept"})
    ran: list[int] = []
    saved: list[int] = []

    def run(task: Square) -> dict[str, Any]:
        ran.append(task.n)
        return square(task)

    tasks = [Square(n) for n in range(5)]
    done = harness.run_pending(tasks, store, run, on_saved=lambda t, r: saved.append(t.n))
    assert done == 4 and sorted(ran) == [0, 1, 2, 4] and saved == ran
    assert store.load(Square(3).key())["value"] == "kept"  # not re-run, not overwritten
    for n in (0, 1, 2, 4):
        assert store.load(Square(n).key()) == {"key": Square(n).key(), **square(Square(n)),
                                               "pid": os.getpid()}
    assert harness.run_pending(tasks, store, run) == 0  # everything stored: nothing runs
    assert len(ran) == 4


def test_run_pending_with_two_workers_gives_the_same_records(tmp_path: Path) -> None:
    tasks = [Square(n) for n in range(6)]
    one, two = RunStore(tmp_path / "one"), RunStore(tmp_path / "two")
    assert harness.run_pending(tasks, one, square, workers=1) == 6
    saved: list[int] = []
    assert harness.run_pending(tasks, two, square, workers=2,
                               on_saved=lambda t, r: saved.append(t.n)) == 6
    assert sorted(saved) == list(range(6))  # saved by this process as they arrive

    def without_pid(store: RunStore) -> list[dict[str, Any]]:
        return [{k: v for k, v in r.items() if k != "pid"} for r in store.records()]

    assert without_pid(two) == without_pid(one)
    assert {r["pid"] for r in two.records()} != {os.getpid()}  # run in the worker processes
    assert sorted(p.name for p in (tmp_path / "two").iterdir()) == \
        sorted(p.name for p in (tmp_path / "one").iterdir())


def test_run_pending_sets_the_thread_count(tmp_path: Path) -> None:
    torch.set_num_threads(2)
    harness.run_pending([Square(0)], RunStore(tmp_path), lambda t: {"threads":
                        torch.get_num_threads()}, threads=1)
    assert RunStore(tmp_path).load(Square(0).key())["threads"] == 1


# ---- the invocation log, the throttle ----------------------------------------------------------


def test_invocations_log_appends_one_entry_per_invocation(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    layout = harness.Layout(tmp_path / "results", "graphs")
    first = harness.Invocations(layout, harness.Invocation(harness.command_line(
        ["reproduce", "graphs", "--data-dir", "/data", "--workers", "2"]), workers=2))
    log = layout.raw / "invocations.json"
    entries = json.loads(log.read_text())
    assert len(entries) == 1
    assert entries[0]["command"] == "gfbgcn reproduce graphs --workers 2"
    assert entries[0]["finished"] is None and entries[0]["workers"] == 2
    assert "device" not in entries[0]  # the command did not say
    assert {"versions", "machine", "started", "wall_s"} <= set(entries[0])
    first.add_seconds("MUTAG", 1.5)
    first.add_seconds("MUTAG", 2.0)
    first.finish()
    entries = json.loads(log.read_text())
    assert entries[0]["finished"] is not None and entries[0]["wall_s"] == {"MUTAG": 3.5}
    second = harness.Invocations(layout, harness.Invocation(
        "gfbgcn reproduce graphs --report-only", device="cuda:0 (Fake GPU)"))
    entries = harness.Invocations.load(layout)
    assert len(entries) == 2 and entries[0]["finished"] and entries[1]["finished"] is None
    assert entries[1]["command"] == "gfbgcn reproduce graphs --report-only"
    assert (entries[1]["workers"], entries[1]["device"]) == (1, "cuda:0 (Fake GPU)")
    assert list(layout.store().records()) == []  # the log is not a run record
    markdown = "\n".join(harness.invocations_markdown(layout))
    assert "`gfbgcn reproduce graphs --workers 2` (finished" in markdown and "2 workers" in markdown
    assert "(interrupted or running" in markdown and "| MUTAG | 4 |" in markdown
    second.finish()
    assert all(e["finished"] for e in harness.Invocations.load(layout))


def test_throttle_calls_at_most_once_per_interval() -> None:
    calls: list[int] = []
    throttle = harness.Throttle(lambda: calls.append(1), seconds=3600.0)
    throttle()
    throttle("task", {"record": 1})  # on_saved passes (task, record)
    assert calls == [1]
    throttle.flush()
    assert calls == [1, 1]
    eager = harness.Throttle(lambda: calls.append(2), seconds=0.0)
    eager()
    eager()
    assert calls.count(2) == 2


def test_two_identical_commands_in_the_same_second_keep_two_entries(tmp_path: Path) -> None:
    layout = harness.Layout(tmp_path, "graphs")
    layout.raw.mkdir(parents=True, exist_ok=True)
    first = harness.Invocations(layout, _invocation("reproduce", "graphs"))
    second = harness.Invocations(layout, _invocation("reproduce", "graphs"))
    second.entry["started"] = first.entry["started"]  # same command, same second
    second.finish()
    first.finish()
    entries = harness.Invocations.load(layout)
    assert len(entries) == 2 and all(e["finished"] for e in entries)


# ---- the loop of every reproduce verb ----------------------------------------------------------


def test_reproduce_runs_each_data_set_logs_it_and_renders(tmp_path: Path) -> None:
    layout = harness.Layout(tmp_path, "task")
    calls: list[str] = []

    def run(dataset: str) -> bool:
        calls.append(f"run {dataset}")
        return dataset != "missing"  # False: could not be run, not logged

    harness.reproduce(layout, ["a", "missing", "b"], run, lambda: calls.append("render"),
                      _invocation("reproduce", "x"), threads=1, log_extra={"extra": 7})
    assert calls == ["run a", "render", "run missing", "render", "run b", "render"]
    (entry,) = harness.Invocations.load(layout)
    assert set(entry["wall_s"]) == {"a", "b"} and entry["finished"]
    assert (entry["threads"], entry["extra"]) == (1, 7)
    assert entry["command"] == "gfbgcn reproduce x"


def test_reproduce_report_only_renders_and_runs_nothing(tmp_path: Path) -> None:
    layout = harness.Layout(tmp_path, "task")
    calls: list[str] = []
    with pytest.raises(OptionError, match="^report_only: no run records") as info:
        harness.reproduce(layout, ["a"], lambda d: pytest.fail(f"ran {d}"),
                          lambda: calls.append("render"), _invocation(), report_only=True)
    assert info.value.parameters == ("report_only", "out")  # the CLI names its flags
    assert calls == []
    layout.store().save({"dataset": "a"}, {"accuracy": 1.0})
    harness.reproduce(layout, ["a", "b"], lambda d: pytest.fail(f"ran {d}"),
                      lambda: calls.append("render"), _invocation(), report_only=True)
    assert calls == ["render"]
    assert not (layout.raw / harness.Invocations.FILE).exists()  # no invocation logged


def test_thread_counts_from_the_log(tmp_path: Path) -> None:
    layout = harness.Layout(tmp_path, "graphs")
    layout.raw.mkdir(parents=True)
    log = layout.raw / harness.Invocations.FILE
    entries = [{"command": "gfbgcn reproduce graphs --threads 4", "threads": 4},
               {"command": "gfbgcn reproduce graphs", "threads": 2},
               {"command": "gfbgcn reproduce graphs", "threads": 2}]
    log.write_text(json.dumps(entries), encoding="utf-8")
    assert harness.thread_counts(layout) == [2, 4]
    # an entry without its threads (a log of the unreleased format): refused, not guessed
    # from the command line
    log.write_text(json.dumps([*entries, {"command": "gfbgcn reproduce graphs --threads 1"}]),
                   encoding="utf-8")
    with pytest.raises(UserError) as err:
        harness.thread_counts(layout)
    assert str(err.value) == (f"{log}: entry 3 records no threads (an integer); the log was "
                              "not written by this gfbgcn")


# ---- worker processes: failures are reported, never hang; spawned workers get the run ---------


def failing(task: Square) -> dict[str, Any]:
    if task.n == 2:
        raise RuntimeError("CUDA error: an illegal memory access was encountered")
    return square(task)


def dying(task: Square) -> dict[str, Any]:
    if task.n == 2:
        os._exit(3)  # what the kernel's OOM killer or a driver abort looks like to the parent
    return square(task)


def test_a_run_that_raises_in_a_worker_ends_the_grid_naming_the_run(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    with pytest.raises(workers.WorkerRunError, match=r"tag=sq n=2 in a worker: RuntimeError: "
                                                     r"CUDA error"):
        harness.run_pending([Square(n) for n in range(4)], store, failing, workers=2)
    assert not store.done(Square(2).key())


def test_a_worker_that_dies_ends_the_grid_instead_of_hanging(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    with pytest.raises(workers.WorkerDiedError, match="worker process died while running"):
        harness.run_pending([Square(n) for n in range(4)], store, dying, workers=2)
    assert not store.done(Square(2).key())


def test_an_out_of_memory_error_in_a_worker_keeps_its_type_and_names_the_run(
        tmp_path: Path) -> None:
    from gfbgcn.cli.runtime.failures import describe
    with pytest.raises(MemoryError) as info:
        harness.run_pending([Square(n) for n in range(3)], RunStore(tmp_path), out_of_memory,
                            workers=2)
    assert describe(info.value).startswith("out of memory while running tag=sq n=1 in a worker")


def out_of_memory(task: Square) -> dict[str, Any]:
    if task.n == 1:
        raise MemoryError
    return square(task)


def test_spawned_workers_receive_the_run_function(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The start of GPU workers (spawned, ``run`` pickled to them), without the GPU's memory
    bound, which needs CUDA."""
    import multiprocessing as mp

    monkeypatch.setattr(workers, "_worker_start", lambda run, threads, device, workers: (
        mp.get_context("spawn"), (run, threads, None, None)))
    store = RunStore(tmp_path)
    assert harness.run_pending([Square(n) for n in range(3)], store, square, workers=2) == 3
    records = [store.load(Square(n).key()) for n in range(3)]
    assert [r["value"] for r in records] == [0, 1, 4]
    assert os.getpid() not in {r["pid"] for r in records}


def test_spawned_workers_refuse_a_run_that_cannot_be_pickled(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import multiprocessing as mp

    monkeypatch.setattr(workers, "_worker_start", lambda run, threads, device, workers: (
        mp.get_context("spawn"), (run, threads, None, None)))
    with pytest.raises(TypeError, match="must be picklable"):
        harness.run_pending([Square(n) for n in range(2)], RunStore(tmp_path),
                            lambda task: square(task), workers=2)


def test_gpu_workers_share_the_card_in_equal_bounded_parts() -> None:
    assert workers.gpu_memory_fraction(1) == pytest.approx(0.95)
    assert workers.gpu_memory_fraction(8) * 8 == pytest.approx(0.95)


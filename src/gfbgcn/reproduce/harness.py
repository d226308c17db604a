"""The reproduction harness shared by every ``gfbgcn reproduce`` verb (text, inductive,
own-corpora, entity, graphs).

Every reproduction is the same loop: a grid of runs, each identified by a key, one JSON record
per finished run in a :class:`~gfbgcn.reproduce.store.RunStore` (so an interrupted grid resumes
where it stopped), optionally several worker processes, and a markdown report rendered from whatever
records exist.  This module holds that loop and what goes with it:

* :func:`reproduce`: the per-data-set loop of every verb, and the one meaning of
  ``--report-only`` (re-render from the records, run nothing);
* :class:`Layout`: where a task's report, records, figures and notes live under ``--out``;
* :func:`command_line`: the command that produced a report, with no machine paths in it, and
  :class:`Invocation`: what the log keeps of that command (plain values, from the caller);
* :func:`run_pending`: the resumable, optionally multi-process, run loop of one grid;
* :class:`Invocations`: the log of the grid commands run on a task's records;
* :class:`Throttle`: re-render a report at most once per interval while a grid runs.

The command-line flags of the verbs live in :mod:`gfbgcn.cli.flags`.
"""

from __future__ import annotations

import json
import os
import shlex
import time
import uuid
import warnings
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TypeVar

import torch

from gfbgcn.core.errors import OptionError, UserError
from gfbgcn.core.io import atomic_write_json
from gfbgcn.core.paths.outputs import check_results_directory
from gfbgcn.core.progress import progress_bar
from gfbgcn.core.runinfo import provenance, torch_threads
from gfbgcn.reproduce.store import RunStore
from gfbgcn.reproduce.workers import RUNNER, Task, call, run_in_workers


@dataclass(frozen=True)
class Layout:
    """Where one task's results live under the results directory ``out``."""

    out: Path
    task: str

    @property
    def report(self) -> Path:
        return self.out / f"{self.task}.md"

    @property
    def raw(self) -> Path:
        return self.out / "raw" / self.task

    @property
    def figures(self) -> Path:
        return self.out / "figures"

    @property
    def notes(self) -> Path:
        """Hand-written notes appended to the report (optional)."""
        return self.out / f"{self.task}_notes.md"

    def store(self) -> RunStore:
        return RunStore(self.raw)

    def read_notes(self) -> str:
        return self.notes.read_text(encoding="utf-8").strip() if self.notes.is_file() else ""


_DROPPED = {"--data-dir"}  # where the data lies is this machine's business, not the result's


def portable(word: str, cwd: Path | None = None) -> str:
    """``word`` with an absolute path under ``cwd`` made relative (records name no machine)."""
    if not os.path.isabs(word):
        return word
    cwd = (cwd or Path.cwd()).resolve()
    try:
        return str(Path(word).resolve().relative_to(cwd))
    except ValueError:
        return Path(word).name


def command_line(words: Sequence[str]) -> str:
    """The command as typed (``gfbgcn <verb> ...``; ``words``: those after ``gfbgcn``), without
    ``--data-dir`` and machine paths."""
    kept: list[str] = []
    skip = False
    for word in words:
        if skip:
            skip = False
            continue
        name = word.split("=", 1)[0]
        if name in _DROPPED:
            skip = "=" not in word
            continue
        if "=" in word and word.startswith("--"):
            kept.append(f"{name}={portable(word.split('=', 1)[1])}")
        else:
            kept.append(portable(word))
    return shlex.join(["gfbgcn", *kept])


@dataclass(frozen=True)
class Invocation:
    """The command that runs a grid, as its invocation log records it.

    ``command``: :func:`command_line` of its words; ``workers``: processes running the grid's
    runs at once; ``device``: the device the runs compute on, as run records name it
    (:func:`gfbgcn.core.device.device_name`), ``None`` where the command does not say.
    """

    command: str
    workers: int = 1
    device: str | None = None


TaskT = TypeVar("TaskT", bound=Task)


def pending(tasks: Iterable[TaskT], store: RunStore) -> list[TaskT]:
    """The tasks whose record is not in ``store`` yet, in order, without duplicates."""
    seen: set[Hashable] = set()
    out = []
    for task in tasks:
        ident = tuple(sorted(task.key().items()))
        if ident in seen or store.done(task.key()):
            continue
        seen.add(ident)
        out.append(task)
    return out


def run_pending(
    tasks: Iterable[Task],
    store: RunStore,
    run: Callable[[Any], dict[str, Any]],
    *,
    workers: int = 1,
    threads: int | None = 1,
    desc: str = "runs",
    on_saved: Callable[[Task, dict[str, Any]], None] | None = None,
    device: str | torch.device | None = None,
) -> int:
    """Run every task not yet in ``store`` and save ``run(task)`` under ``task.key()``.

    With ``workers > 1`` the tasks run in worker processes with ``threads`` torch threads each;
    records are saved by this process as they arrive, so an interrupted grid keeps every
    finished run.  On the CPU the workers are forked and inherit whatever ``run`` closes over
    (e.g. a loaded graph).  When ``device`` is a CUDA device the workers share that one GPU:
    they are *spawned* (a forked child cannot use CUDA once its parent has), so ``run`` must be
    picklable (a module-level function or an object that loads what it needs in the worker),
    and each may allocate at most :func:`~gfbgcn.reproduce.workers.gpu_memory_fraction` of the
    card (:mod:`gfbgcn.reproduce.workers`).  A run that raises in a worker ends the grid with that
    error, naming the run; a worker that dies (killed for memory, a driver abort) ends it with
    :class:`~gfbgcn.reproduce.workers.WorkerDiedError` instead of a hang.  A task finished meanwhile
    by another process sharing the store is skipped.  Returns the number of runs made.
    """
    todo = pending(tasks, store)
    done = 0

    def save(task: Task, record: dict[str, Any]) -> int:
        nonlocal done
        store.save(task.key(), record)
        done += 1
        if on_saved is not None:
            on_saved(task, record)
        return 1

    run_units(todo, run, save, runs=len(todo), skip=lambda task: store.done(task.key()),
              workers=workers, threads=threads, desc=desc, device=device)
    return done


def run_units(units: Sequence[Task], run: Callable[[Any], dict[str, Any]],
              save: Callable[[Any, dict[str, Any]], int], *, runs: int,
              skip: Callable[[Any], bool], workers: int = 1, threads: int | None = 1,
              desc: str = "runs", device: str | torch.device | None = None) -> None:
    """The loop of :func:`run_pending`: ``save(unit, run(unit))`` for every unit (a task, or
    tasks that run together), in order or in worker processes (saved by this process as results
    arrive), with a progress bar over ``runs`` runs that advances by what ``save`` returns (the
    runs it dealt with); in order, a unit ``skip`` says is finished meanwhile is passed over."""
    if not units:
        return
    RUNNER.update(run=run, threads=threads)
    bar = progress_bar(total=runs, desc=desc, unit="run", dynamic_ncols=True)

    def saved(unit: Task, result: dict[str, Any]) -> None:
        bar.update(save(unit, result))

    try:
        if workers > 1 and len(units) > 1:
            run_in_workers(units, run, saved, min(workers, len(units)), threads, device, desc)
        else:
            for unit in units:
                if skip(unit):  # finished meanwhile by another process
                    bar.update()
                    continue
                bar.set_postfix_str(" ".join(str(v) for v in unit.key().values()), refresh=False)
                saved(*call(unit))
    finally:
        bar.close()
        RUNNER.clear()


def reproduce(
    layout: Layout,
    datasets: Sequence[str],
    run: Callable[[str], bool | None],
    render: Callable[[], None],
    invocation: Invocation,
    *,
    report_only: bool = False,
    threads: int | None = None,
    log_extra: Mapping[str, Any] | None = None,
) -> None:
    """The loop of every ``reproduce`` verb: per data set, its pending runs, then the report.

    ``run(dataset)`` runs the data set's runs that have no record in ``layout`` yet (through
    :func:`run_pending`, so an interrupted command resumes where it stopped) and returns False
    when the data set could not be run at all (e.g. its data is unavailable); each data set run
    has its wall time added to the invocation log (``log_extra``: more entries for it).
    ``render()`` writes the report from the records alone; it follows every data set (the last
    one's after the log marks this command finished).  ``invocation``: the command, for the
    log.

    ``report_only`` means the same in every verb: ``render()`` and nothing else: no run, no
    data set loaded for training, no invocation logged.  ``threads``: torch's thread count while
    the loop runs (``None``: torch's choice).

    Before anything is written, ``layout.out`` is checked (:func:`~gfbgcn.core.paths.outputs.
    check_results_directory`: never a saved model or a training run), and ``report_only`` is
    refused where it holds no record of the task (a report of nothing would replace the one
    there).
    """
    check_results_directory(str(layout.out))
    if report_only:
        check_has_records(layout)
    with torch_threads(threads):
        if not report_only:
            _run_datasets(layout, datasets, run, render, invocation, log_extra or {})
        render()


def check_has_records(layout: Layout) -> None:
    """Refuse to render a report from no records (``report_only`` on the wrong ``out``)."""
    if next(layout.store().records(), None) is None:
        raise OptionError("{0}: no run records in {raw}: nothing to render a report from "
                          "(check {1}, or run without {0} first)", "report_only", "out",
                          raw=str(layout.raw))


def _run_datasets(layout: Layout, datasets: Sequence[str], run: Callable[[str], bool | None],
                  render: Callable[[], None], invocation: Invocation,
                  log_extra: Mapping[str, Any]) -> None:
    log = Invocations(layout, invocation)
    # inside torch_threads(): the count this process and each forked worker use
    log.entry.update(threads=torch.get_num_threads(), **log_extra)
    log.save()  # a report rendered during the first data set reads the threads from the log
    for index, dataset in enumerate(datasets):
        start = time.perf_counter()
        if run(dataset) is not False:
            log.add_seconds(dataset, time.perf_counter() - start)
        if index < len(datasets) - 1:  # the last report follows the log's "finished" mark
            render()
    log.finish()


class Invocations:
    """``raw/<task>/invocations.json``: every grid command run on these records, with when it
    started and finished, its wall time per data set, workers, machine and versions.

    Reports list them as "the commands that produced these records"; a record alone says how
    it was trained, this log says which command asked for it.
    """

    FILE = "invocations.json"

    def __init__(self, layout: Layout, invocation: Invocation) -> None:
        self.path = layout.raw / self.FILE
        if self.path.is_file() and not self.load(layout):  # corrupt: keep it aside, start anew
            os.replace(self.path, self.path.with_name(self.FILE + ".corrupt"))
        self.entry: dict[str, Any] = {
            "id": uuid.uuid4().hex,  # two commands may start within the same second
            "command": invocation.command,
            "started": _now(),
            "finished": None,
            "wall_s": {},
            "workers": invocation.workers,
            **({"device": invocation.device} if invocation.device is not None else {}),
            **provenance(),
        }
        self.entries: list[dict[str, Any]] = []
        self.save()

    @classmethod
    def load(cls, layout: Layout) -> list[dict[str, Any]]:
        path = layout.raw / cls.FILE
        if not path.is_file():
            return []
        try:
            entries = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(entries, list):
                raise ValueError("not a JSON list")
        except (OSError, ValueError) as err:  # truncated by a crash: the records still count
            warnings.warn(f"ignoring corrupt invocation log {path} ({err})", stacklevel=2)
            return []
        return entries

    def save(self) -> None:
        # Re-read first: another command may share these records (e.g. one per data set at
        # once) and its entry must survive ours.
        mine = self.entry
        others = [e for e in self.load_path(self.path) if e.get("id") != mine["id"]]
        self.entries = sorted([*others, mine], key=lambda e: str(e.get("started")))
        atomic_write_json(self.path, self.entries)

    @staticmethod
    def load_path(path: Path) -> list[dict[str, Any]]:
        try:
            entries = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else []
        except (OSError, ValueError):  # made corrupt meanwhile: ours is rewritten whole
            return []
        return [e for e in entries if isinstance(e, dict)] if isinstance(entries, list) else []

    def add_seconds(self, dataset: str, seconds: float) -> None:
        self.entry["wall_s"][dataset] = self.entry["wall_s"].get(dataset, 0.0) + seconds
        self.save()

    def finish(self) -> None:
        self.entry["finished"] = _now()
        self.save()


def invocations_markdown(layout: Layout) -> list[str]:
    """Markdown lines listing the commands in the invocation log and their wall time."""
    entries = Invocations.load(layout)
    if not entries:
        return []
    lines = ["## Commands that produced these records", ""]
    wall: dict[str, float] = {}
    for inv in entries:
        status = "finished" if inv.get("finished") else "interrupted or running"
        workers = inv.get("workers", 1)
        on = f", on {inv['device']}" if inv.get("device") else ""
        lines.append(f"- `{inv['command']}` ({status}, started {inv['started']}, "
                     f"{workers} worker{'s' if workers != 1 else ''}{on})")
        for name, seconds in inv.get("wall_s", {}).items():
            wall[name] = wall.get(name, 0.0) + float(seconds)
    if wall:
        lines += ["", "| data set | wall time (s, all commands, loading included) |", "|---|---|"]
        lines += [f"| {name} | {seconds:.0f} |" for name, seconds in wall.items()]
    machine, versions = entries[-1].get("machine", {}), entries[-1].get("versions", {})
    lines += ["", f"Last command's machine: {machine.get('cpu_count')} CPU cores, "
              f"{machine.get('memory_gib')} GiB RAM; torch {versions.get('torch')}, "
              f"torch_geometric {versions.get('torch_geometric')}.", ""]
    return lines


def thread_counts(layout: Layout) -> list[int]:
    """The torch threads per process of the commands in the invocation log, sorted."""
    entries = Invocations.load(layout)
    unknown = [i for i, e in enumerate(entries) if not isinstance(e.get("threads"), int)]
    if unknown:
        raise UserError(f"{layout.raw / Invocations.FILE}: entry {unknown[0]} records no "
                        "threads (an integer); the log was not written by this gfbgcn")
    return sorted({e["threads"] for e in entries})


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class Throttle:
    """Call ``fn`` at most once per ``seconds`` (and always on :meth:`flush`)."""

    def __init__(self, fn: Callable[[], None], seconds: float = 60.0) -> None:
        self.fn = fn
        self.seconds = seconds
        # None, not 0.0: the monotonic clock may start near zero on a freshly booted machine,
        # and the first call must always go through.
        self._last: float | None = None

    def __call__(self, *_: Any) -> None:
        now = time.monotonic()
        if self._last is None or now - self._last >= self.seconds:
            self._last = now
            self.fn()

    def flush(self) -> None:
        self.fn()

"""Shared helpers of the benchmark scripts: machine description and section-wise report updates."""

from __future__ import annotations

import os
import re
import sys
from datetime import datetime, timezone
from pathlib import Path

from gfbgcn.core.io import atomic_write_text
from gfbgcn.core.runinfo import machine_info, package_versions

REPORT = Path(__file__).resolve().parent.parent / "docs" / "benchmarks.md"
HEADER = (
    "# Benchmarks\n\n"
    "Each section is rewritten by the script named in it; figures are medians of repeated runs "
    "measured in one process, so compare ratios within a section. The machines are shared: "
    "absolute times move with the load of the moment.\n"
)


def machine_line(threads: int | None = None) -> str:
    """The machine, versions and time; ``threads``: the torch threads the measured processes
    used (default: this process's).  The load average shows how busy the shared machine was."""
    m = machine_info()
    v = package_versions()
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    return (f"{m['cpu_count']} CPU cores ({m['processor']}), {m['memory_gib']} GiB RAM, "
            f"torch {v['torch']} with {threads or m['torch_threads']} thread(s), "
            f"Python {v['python']}; load average {load} (1/5/15 min) when written; "
            f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M UTC}")


def portable_arg(arg: str, root: Path = REPORT.parent.parent) -> str:
    """An argument as a committed report may show it: absolute paths inside the repository
    become relative, others become ``<local>/NAME`` (no machine paths in committed files)."""
    if not arg.startswith("/"):
        return arg
    path = Path(arg)
    try:
        return str(path.resolve().relative_to(root.resolve()))
    except ValueError:
        return f"<local>/{path.name}"


def command_line() -> str:
    return "python " + " ".join(["benchmarks/" + Path(sys.argv[0]).name,
                                 *map(portable_arg, sys.argv[1:])])


def update_section(name: str, body: str, path: Path = REPORT) -> None:
    """Replace the section between ``<!-- name -->`` markers (append it if absent)."""
    text = path.read_text(encoding="utf-8") if path.is_file() else HEADER
    start, end = f"<!-- {name} -->", f"<!-- /{name} -->"
    block = f"{start}\n{body.rstrip()}\n{end}"
    pattern = re.compile(re.escape(start) + r".*?" + re.escape(end), re.S)
    if pattern.search(text):
        text = pattern.sub(lambda _: block, text)
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    atomic_write_text(path, text)


def publish(name: str, text: str, print_only: bool) -> None:
    """Print the section ``text`` (``print_only``: a ``--no-write`` run), or write it into
    ``docs/benchmarks.md`` between its ``name`` markers and say so."""
    if print_only:
        print(text)
    else:
        update_section(name, text)
        print("updated docs/benchmarks.md")


def print_or_write(text: str, path: Path | None) -> None:
    """A results page: printed when ``path`` is None, else written there (atomically) and
    said so."""
    if path is None:
        print(text)
    else:
        atomic_write_text(path, text)
        print(f"wrote {path}")


def median_seconds(fn, repeats: int) -> float:
    """Median wall-clock seconds of ``repeats`` calls of ``fn()`` (within one process)."""
    import statistics
    import time

    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)

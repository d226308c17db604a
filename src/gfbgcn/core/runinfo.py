"""Seeds, threads and provenance recorded with every run."""

from __future__ import annotations

import functools
import numbers
import os
import platform
import random
import resource
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
import torch

from gfbgcn._version import __version__
from gfbgcn.core.errors import OptionError

_PACKAGES = ("gfbgcn", "torch", "torch_geometric", "numpy", "scipy", "scikit-learn", "nltk")


def seed_everything(seed: int) -> torch.Generator:
    """Seed Python, NumPy and torch; return a torch generator seeded with ``seed``.

    Reseeds the process's global generators: for the command line's entity and graph tasks
    only; what the Python API reaches (text training) uses :func:`torch_seeded` instead."""
    random.seed(seed)
    np.random.seed(seed % (2**32))
    torch.manual_seed(seed)
    return torch.Generator().manual_seed(seed)


@contextmanager
def torch_seeded(seed: int, device: torch.device | str | None = None) -> Iterator[None]:
    """torch's default generators seeded with ``seed`` for the block, the caller's states
    restored after it (Python's and NumPy's global generators are not touched).

    Weight initialisation (PyG's ``glorot``) and dropout draw from torch's default generator
    and take no ``generator=`` argument, so a run seeds that generator inside
    :func:`torch.random.fork_rng` rather than reseeding the caller's.  The CPU generator is
    always forked; on a CUDA ``device`` every visible GPU's generator too (what
    ``torch.manual_seed`` seeds; a CPU run leaves CUDA uninitialised and its seeds alone).
    Not thread-safe: like any use of the default generators, two threads training at once
    interleave their draws."""
    on_cuda = device is not None and torch.device(device).type == "cuda"
    gpus = list(range(torch.cuda.device_count())) if on_cuda else []
    with torch.random.fork_rng(devices=gpus, device_type="cuda"):
        torch.random.default_generator.manual_seed(seed)
        for gpu in gpus:
            torch.cuda.default_generators[gpu].manual_seed(seed)
        yield


def check_threads(threads: int) -> int:
    """``threads`` if it is a thread count: a whole number >= 0, where 0 keeps torch's choice
    (else an :class:`OptionError` naming the parameter ``threads``)."""
    if isinstance(threads, bool) or not isinstance(threads, numbers.Integral) or threads < 0:
        raise OptionError("{0} must be >= 0 (0: torch's choice), got {value}", "threads",
                          value=threads)
    return int(threads)


def set_threads(threads: int | None) -> None:
    """Set torch's CPU thread count; ``None`` or 0 keeps torch's choice (all cores)."""
    if threads is not None:
        check_threads(threads)
    if threads:
        torch.set_num_threads(threads)


@contextmanager
def torch_threads(threads: int | None) -> Iterator[None]:
    """``set_threads(threads)`` for the duration of the block, then torch's previous count."""
    before = torch.get_num_threads()
    set_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def package_versions() -> dict[str, str]:
    """Python's version and each package's; gfbgcn's also when it runs from a source tree
    (``PYTHONPATH=src``), where no distribution metadata exists."""
    out = {"python": platform.python_version()}
    for name in _PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = source_version() if name == "gfbgcn" else "not installed"
    return out


@functools.cache  # one git call per process, not one per run record
def source_version() -> str:
    """``0.1.0 (source, commit 1a2b3c4)``: the version of the package run from a checkout,
    with the checkout's commit where git can tell it (``(source)`` alone otherwise)."""
    here = Path(__file__).resolve().parent
    try:
        commit = subprocess.run(["git", "-C", str(here), "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True, timeout=5, check=True)
        where = f"source, commit {commit.stdout.strip()}"
    except (OSError, subprocess.SubprocessError):  # no git, not a checkout: still say source
        where = "source"
    return f"{__version__} ({where})"


def machine_info() -> dict[str, Any]:
    mem_gib = None
    try:
        mem_gib = round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1)
    except (ValueError, OSError, AttributeError):
        pass
    return {
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "torch_threads": torch.get_num_threads(),
        "memory_gib": mem_gib,
    }


def provenance() -> dict[str, Any]:
    """``{"versions": ..., "machine": ...}``: what every run record carries."""
    return {"versions": package_versions(), "machine": machine_info()}


def peak_rss_mib() -> float:
    """Peak resident set size of this process in MiB since it started (Linux/macOS)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 1024


def reset_peak_rss() -> bool:
    """Reset the kernel's peak-RSS counter of this process (Linux ``clear_refs`` 5), so that
    :func:`current_peak_rss_mib` measures one run of a process that runs several.

    Returns False where that is not possible (then the peak is the process lifetime's).
    """
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def current_peak_rss_mib() -> float:
    """``VmHWM`` (peak RSS since the last :func:`reset_peak_rss`) in MiB, else ``ru_maxrss``."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return peak_rss_mib()

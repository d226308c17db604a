"""Where tensors live: ``auto``, ``cpu``, ``cuda`` or ``cuda:N``, resolved once per command
(the command line's ``--device``: :mod:`gfbgcn.cli.runtime.device`).

``auto`` is the first CUDA device when torch sees one, else the CPU.  Asking for CUDA where
there is none is a user error (:class:`DeviceError`), raised before any work.

Reproducibility: on the CPU a run with a given seed repeats bit for bit.  On every device the
seed gives the same initial weights (drawn on the CPU, then moved) and validation split; on
CUDA the dropout masks come from the GPU's generator, and some kernels accumulate with atomic
additions in an order that varies from run to run (``index_add`` / scatter sums of message
passing, the backward of gathers, torch's backward of sparse products), so losses and metrics
are only promised to agree to float32 rounding and early stopping can pick a neighbouring
epoch.  Every run record names the device that made it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import torch

from gfbgcn.core.errors import DeviceError

DEVICE_CHOICES = "auto, cpu, cuda or cuda:N"
#: The device every command and the classifier default to, and what the setting means (the
#: one source of ``--device``'s default and help, and of the classifier's ``device``).
DEFAULT_DEVICE = "auto"
DEVICE_HELP = (f"where to compute: {DEVICE_CHOICES} (auto: the first CUDA GPU if torch sees "
               "one, else the CPU)")
_PATTERN = re.compile(r"^(auto|cpu|cuda(:\d+)?)$")


def resolve_device(spec: str | torch.device | None = "auto") -> torch.device:
    """The ``torch.device`` meant by ``spec`` (``None`` means ``auto``), checked to exist."""
    if isinstance(spec, torch.device):
        spec = str(spec)
    spec = (spec or "auto").strip().lower()
    if not _PATTERN.match(spec):
        raise DeviceError(f"unknown device {spec!r}; use {DEVICE_CHOICES}")
    if spec == "auto":
        return torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
    device = torch.device(spec)
    if device.type == "cuda":
        if not torch.cuda.is_available():
            raise DeviceError("device {spec!r} asked for, but torch sees no CUDA GPU here "
                              "(torch {version}); use {0} cpu or auto", "device", spec=spec,
                              version=torch.__version__)
        index = device.index or 0
        if index >= torch.cuda.device_count():
            raise DeviceError(f"device {spec!r} asked for, but there are only "
                              f"{torch.cuda.device_count()} CUDA device(s)")
        device = torch.device("cuda", index)
    return device


def device_name(device: torch.device) -> str:
    """What run records call the device: ``cpu`` or ``cuda:0 (NVIDIA H100 80GB HBM3)``."""
    if device.type == "cuda":
        return f"{device} ({torch.cuda.get_device_name(device)})"
    return str(device)


def device_label(names: Iterable[str]) -> str:
    """Short label of the devices named in run records, for table headers: ``CPU``,
    ``NVIDIA H100 80GB HBM3`` or ``CPU + NVIDIA ...``."""
    labels = []
    for name in names:
        label = "CPU" if name == "cpu" else name
        match = re.match(r"^cuda:\d+ \((.*)\)$", name)
        if match:
            label = match.group(1)
        if label not in labels:
            labels.append(label)
    return " + ".join(labels) or "CPU"


def synchronize(device: torch.device) -> None:
    """Wait for the device's queued kernels (CUDA runs asynchronously), e.g. before reading a
    clock; a no-op on the CPU."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)

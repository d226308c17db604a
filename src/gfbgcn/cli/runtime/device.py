"""``--device``: one flag, one meaning in every verb that computes, resolved at the start of the
verb, before any work (what each value means: :mod:`gfbgcn.core.device`)."""

from __future__ import annotations

import argparse

import torch

from gfbgcn.core.device import DEFAULT_DEVICE, DEVICE_HELP, resolve_device
from gfbgcn.core.errors import DeviceError


def add_device_argument(parser: argparse.ArgumentParser) -> None:
    """``--device`` with the same meaning in every verb."""
    parser.add_argument("--device", default=DEFAULT_DEVICE, metavar="DEVICE",
                        help=f"{DEVICE_HELP}; default {DEFAULT_DEVICE}")


def device_from_args(args: argparse.Namespace, *, gpu_workers: bool = False) -> torch.device:
    """Resolve ``args.device`` at the start of a verb, before any work.

    A device that does not exist here is a :class:`DeviceError` (the command line reports it
    in one line, exit status 2).  ``gpu_workers``: the verb's ``--workers`` processes can share
    one CUDA device (they are spawned, see :func:`gfbgcn.reproduce.harness.run_pending`).  A verb
    without that forks its workers, which cannot use CUDA: with ``--workers`` > 1 its ``auto``
    means the CPU and an explicit CUDA device is refused.
    """
    spec = getattr(args, "device", "auto")
    workers = int(getattr(args, "workers", 1) or 1)
    device = resolve_device(spec)
    if workers > 1 and device.type == "cuda" and not gpu_workers:
        if (spec or "auto").strip().lower() != "auto":
            raise DeviceError(f"--workers {workers} forks CPU processes, which cannot share "
                              f"device {spec!r}; use --workers 1 with a CUDA device")
        device = torch.device("cpu")
    return device

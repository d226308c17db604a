"""What a ``reproduce`` verb tells the reproduction harness about itself: plain values read from
its parsed command line (the harness never sees an ``argparse.Namespace``)."""

from __future__ import annotations

import argparse

import torch

from gfbgcn.core.device import device_name
from gfbgcn.reproduce.harness import Invocation, command_line


def invocation(args: argparse.Namespace, device: torch.device) -> Invocation:
    """The command (the words :func:`gfbgcn.cli.main` parsed, without machine paths), its
    ``--workers`` and the resolved ``device``, for the invocation log of its records."""
    return Invocation(command_line(getattr(args, "command_argv", [])),
                      workers=int(getattr(args, "workers", 1) or 1), device=device_name(device))

"""``--device``: the flag, resolved at the start of a verb, before any work (end to end on every
verb: ``tests/cli/test_device.py``)."""

from __future__ import annotations

import argparse

import pytest
import torch

from gfbgcn.cli.runtime.device import add_device_argument, device_from_args
from gfbgcn.core.device import DEVICE_CHOICES
from gfbgcn.core.errors import DeviceError


def test_device_argument() -> None:
    parser = argparse.ArgumentParser()
    add_device_argument(parser)
    assert parser.parse_args([]).device == "auto"
    assert parser.parse_args(["--device", "cuda:1"]).device == "cuda:1"
    assert "--device DEVICE" in parser.format_help() and DEVICE_CHOICES in parser.format_help()


def _args(device: str, workers: int = 1) -> argparse.Namespace:
    return argparse.Namespace(device=device, workers=workers)


def test_device_from_args_raises_a_user_error(no_gpu) -> None:
    """A user error (reported by ``gfbgcn.cli.main`` in one line, exit 2), nothing printed here."""
    assert device_from_args(_args("auto")) == torch.device("cpu")
    with pytest.raises(DeviceError, match="^device 'cuda:0' asked for") as info:
        device_from_args(_args("cuda:0"))
    assert str(info.value).endswith("use device cpu or auto")  # the Python parameter


def test_workers_keep_auto_on_the_cpu_and_refuse_cuda(two_gpus) -> None:
    assert device_from_args(_args("auto")) == torch.device("cuda", 0)
    assert device_from_args(_args("auto", workers=2)) == torch.device("cpu")
    assert device_from_args(_args("cpu", workers=2)) == torch.device("cpu")
    assert device_from_args(_args("auto", workers=2), gpu_workers=True) == torch.device("cuda", 0)
    with pytest.raises(DeviceError, match="--workers 2"):
        device_from_args(_args("cuda:1", workers=2))

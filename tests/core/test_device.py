"""Devices: auto, cpu, cuda and cuda:N resolved once, errors before any work."""

from __future__ import annotations

import pytest
import torch

from gfbgcn.core.device import device_label, device_name, resolve_device
from gfbgcn.core.errors import DeviceError


def test_cpu_and_auto_without_a_gpu(no_gpu) -> None:
    assert resolve_device("cpu") == torch.device("cpu")
    assert resolve_device(" CPU ") == torch.device("cpu")
    assert resolve_device("auto") == resolve_device(None) == torch.device("cpu")
    assert resolve_device(torch.device("cpu")) == torch.device("cpu")
    assert device_name(torch.device("cpu")) == "cpu"


def test_cuda_without_a_gpu_is_a_user_error(no_gpu) -> None:
    for spec in ("cuda", "cuda:0"):
        with pytest.raises(DeviceError, match="no CUDA GPU"):
            resolve_device(spec)


def test_cuda_indices(two_gpus) -> None:
    assert resolve_device("auto") == torch.device("cuda", 0)
    assert resolve_device("cuda") == torch.device("cuda", 0)
    assert resolve_device("cuda:1") == torch.device("cuda", 1)
    with pytest.raises(DeviceError, match="only 2 CUDA device"):
        resolve_device("cuda:2")


@pytest.mark.parametrize("spec", ["gpu", "cuda:x", "mps", "cpu:0", ""])
def test_unknown_specs(spec: str) -> None:
    if spec == "":
        assert resolve_device(spec) == resolve_device("auto")  # empty means auto
        return
    with pytest.raises(DeviceError, match="unknown device"):
        resolve_device(spec)


def test_device_label() -> None:
    assert device_label([]) == "CPU"
    assert device_label(["cpu", "cpu"]) == "CPU"
    assert device_label(["cuda:0 (NVIDIA H100 80GB HBM3)"]) == "NVIDIA H100 80GB HBM3"
    assert device_label(["cpu", "cuda:1 (X)", "cuda:0 (X)"]) == "CPU + X"

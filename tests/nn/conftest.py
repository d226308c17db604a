"""Layer and model tests run single-threaded."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import torch


@pytest.fixture(autouse=True)
def _single_thread() -> Iterator[None]:
    """Tiny tensors: intra-op threads only add latency (pocketfft splits even a 6 x 16 FFT
    over threads, which costs milliseconds per call on a loaded 2-core machine)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)

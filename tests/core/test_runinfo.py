"""Seeds, threads, versions, machine and memory recorded with every run."""

from __future__ import annotations

import mmap
import random

import numpy as np
import pytest
import torch

from gfbgcn.core.errors import OptionError
from gfbgcn.core.runinfo import (
    check_threads,
    current_peak_rss_mib,
    machine_info,
    package_versions,
    peak_rss_mib,
    provenance,
    reset_peak_rss,
    seed_everything,
    set_threads,
    torch_seeded,
    torch_threads,
)


@pytest.fixture
def restore_threads():
    before = torch.get_num_threads()
    yield before
    torch.set_num_threads(before)


def test_set_threads_sets_and_is_recorded(restore_threads):
    set_threads(1)
    assert torch.get_num_threads() == 1
    assert machine_info()["torch_threads"] == 1


@pytest.mark.parametrize("threads", [None, 0])
def test_set_threads_none_keeps_torch_choice(restore_threads, threads):
    torch.set_num_threads(2)
    set_threads(threads)
    assert torch.get_num_threads() == 2


def test_set_threads_rejects_negative(restore_threads):
    with pytest.raises(OptionError, match="^threads must be >= 0") as info:
        set_threads(-1)
    assert info.value.parameters == ("threads",)


@pytest.mark.parametrize("verb", [["train", "--dataset", "r8"], ["reproduce", "text"]])
@pytest.mark.parametrize("value", ["-1", "two"])
def test_bad_threads_flag_is_a_usage_error(verb, value, capsys):
    from gfbgcn.cli import main

    assert main([*verb, "--threads", value]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: argument --threads")


@pytest.mark.parametrize("threads", [1, 3])
def test_torch_threads_restores_the_previous_count(restore_threads, threads):
    torch.set_num_threads(2)
    with torch_threads(threads):
        assert torch.get_num_threads() == threads
    assert torch.get_num_threads() == 2
    with pytest.raises(RuntimeError, match="inside"):
        with torch_threads(1):
            raise RuntimeError("inside")
    assert torch.get_num_threads() == 2  # restored on errors too
    with torch_threads(0):  # torch's choice: unchanged
        assert torch.get_num_threads() == 2


def test_check_threads():
    assert check_threads(0) == 0 and check_threads(4) == 4
    for bad in (-1, 1.5, "2", True):
        with pytest.raises(OptionError, match="^threads must be >= 0"):
            check_threads(bad)


def test_seed_everything_seeds_every_generator():
    def draw(gen):
        return (random.random(), float(np.random.rand()), float(torch.rand(1)),
                float(torch.rand(1, generator=gen)))

    assert draw(seed_everything(7)) == draw(seed_everything(7))
    assert draw(seed_everything(7)) != draw(seed_everything(8))
    assert seed_everything(8).initial_seed() == 8


def test_torch_seeded_draws_the_seed_and_restores_the_callers_state():
    torch.manual_seed(123)
    before = torch.get_rng_state()
    with torch_seeded(7):
        inside = torch.rand(3)
    assert torch.equal(torch.get_rng_state(), before)  # the caller's draws go on unchanged
    with torch_seeded(7):
        assert torch.equal(torch.rand(3), inside)  # the seed decides the draws
    torch.manual_seed(7)
    assert torch.equal(torch.rand(3), inside)  # the draws of torch.manual_seed(7), as before


def test_torch_seeded_restores_the_state_after_an_error():
    before = torch.get_rng_state()
    with pytest.raises(RuntimeError), torch_seeded(1):
        torch.rand(5)
        raise RuntimeError("training failed")
    assert torch.equal(torch.get_rng_state(), before)


def test_provenance_names_versions_and_machine():
    record = provenance()
    assert set(record) == {"versions", "machine"}
    versions = package_versions()
    assert record["versions"] == versions
    assert {"python", "gfbgcn", "torch", "torch_geometric", "numpy"} <= set(versions)
    assert versions["torch"].split("+")[0] == torch.__version__.split("+")[0]
    machine = record["machine"]
    assert {"platform", "processor", "cpu_count", "torch_threads", "memory_gib"} <= set(machine)


def test_peak_rss_after_a_reset_measures_the_run_not_the_process():
    lifetime = peak_rss_mib()
    assert lifetime > 0
    if not reset_peak_rss():  # not Linux (or /proc not writable): the lifetime peak is kept
        assert current_peak_rss_mib() > 0
        return
    before = current_peak_rss_mib()
    assert 0 < before <= lifetime + 1
    # an anonymous map of 64 MiB, touched, then unmapped: its pages go back to the system
    # whatever the allocator does with freed memory (a numpy array's may be kept after a long
    # test session)
    block = mmap.mmap(-1, 64 * 2**20)
    np.frombuffer(block, dtype=np.uint8)[:] = 1
    after = current_peak_rss_mib()
    assert after >= before + 50
    block.close()
    assert reset_peak_rss() and current_peak_rss_mib() < after


def test_a_source_tree_records_its_version_not_not_installed(monkeypatch) -> None:
    """Run from ``PYTHONPATH=src`` there is no distribution metadata: records still say which
    version (and, in a git checkout, which commit) made them."""
    from importlib import metadata

    import gfbgcn
    from gfbgcn.core import runinfo

    real = metadata.version

    def no_gfbgcn(name: str) -> str:
        if name == "gfbgcn":
            raise metadata.PackageNotFoundError(name)
        return real(name)

    monkeypatch.setattr(runinfo.metadata, "version", no_gfbgcn)
    version = runinfo.package_versions()["gfbgcn"]
    assert version.startswith(f"{gfbgcn.__version__} (source")
    assert version == runinfo.source_version()

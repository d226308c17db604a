"""Fixtures of the entity tests: one torch thread, and AIFB loaded once per session."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
import torch

from gfbgcn.entity.data import EntityData, load_entities


@pytest.fixture(scope="module", autouse=True)
def _one_thread() -> Iterator[None]:
    """As the CLI does; faster on a small shared machine."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="session")
def aifb(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[EntityData]:
    """AIFB processed into the same temporary cache that tests/conftest.py gives each test."""
    with pytest.MonkeyPatch.context() as mp:
        if "GFBGCN_CACHE" not in os.environ:
            mp.setenv("GFBGCN_CACHE", str(tmp_path_factory.getbasetemp() / "cache"))
        yield load_entities("aifb", data_dir, allow_download=False)


def toy_entities(num_nodes: int = 12) -> EntityData:
    """A path 0-1-...-(n-1) in both directions (relation = direction); node 0 is the only
    training node (class 1), node n-1 the only test node (class 0)."""
    src = torch.arange(num_nodes - 1)
    edge_index = torch.cat([torch.stack([src, src + 1]), torch.stack([src + 1, src])], dim=1)
    edge_type = torch.cat([torch.zeros(num_nodes - 1), torch.ones(num_nodes - 1)]).long()
    return EntityData("toy", num_nodes, 2, 2, edge_index, edge_type,
                      train_idx=torch.tensor([0]), train_y=torch.tensor([1]),
                      test_idx=torch.tensor([num_nodes - 1]), test_y=torch.tensor([0]))

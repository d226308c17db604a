"""Entity data: AIFB read from a read-only data root, offline errors that name what is missing,
stratified hold-outs and k-hop subgraphs."""

from __future__ import annotations

import filecmp
import time
import urllib.error
from pathlib import Path

import pytest
import torch
from torch_geometric.datasets import Entities

import gfbgcn.entity.data as edata
from gfbgcn.core.errors import DatasetUnavailableError, UserError
from gfbgcn.core.paths import cache_dir
from gfbgcn.entity.data import (
    DATASETS,
    canonical_name,
    download_url,
    load_entities,
    raw_file_names,
    restrict_to_khop,
    stratified_holdout,
)

from .conftest import toy_entities

BGS_FILES = ["bgs_stripped.nt.gz", "completeDataset.tsv", "trainingSet.tsv", "testSet.tsv"]


def _assert_clear(message: str, searched: Path) -> None:
    for fname in BGS_FILES:
        assert fname in message
    assert str(searched) in message
    assert "https://data.dgl.ai/dataset/bgs.tgz" in message


def test_bgs_offline_message_without_download(tmp_path: Path) -> None:
    start = time.perf_counter()
    with pytest.raises(DatasetUnavailableError) as info:
        load_entities("BGS", tmp_path, allow_download=False)
    assert time.perf_counter() - start < 5
    _assert_clear(str(info.value), tmp_path / "entities" / "bgs" / "raw")
    assert "disabled" in str(info.value)


def test_bgs_no_network_fails_fast(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []

    def unreachable(url: str, timeout: float = 5.0) -> tuple[bool, str]:
        calls.append(url)
        return False, "cannot reach data.dgl.ai:443 (simulated)"

    monkeypatch.setattr(edata, "network_reachable", unreachable)
    with pytest.raises(DatasetUnavailableError) as info:
        load_entities("bgs", tmp_path)
    assert calls == ["https://data.dgl.ai/dataset/bgs.tgz"]
    _assert_clear(str(info.value), tmp_path / "entities" / "bgs" / "raw")
    assert "network is unavailable" in str(info.value)


def test_failed_download_is_wrapped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(edata, "network_reachable", lambda url, timeout=5.0: (True, "ok"))

    def refuse(self: Entities) -> None:
        raise urllib.error.URLError("simulated: connection refused")

    monkeypatch.setattr(Entities, "download", refuse)
    with pytest.raises(DatasetUnavailableError) as info:
        load_entities("bgs", tmp_path)
    _assert_clear(str(info.value), tmp_path / "entities" / "bgs" / "raw")
    assert "download failed" in str(info.value)


def test_network_probe_times_out_quickly() -> None:
    # 192.0.2.0/24 is TEST-NET-1 (never routed): the probe must give up within its timeout
    start = time.perf_counter()
    ok, why = edata.network_reachable("https://192.0.2.1/x.tgz", timeout=0.5)
    assert not ok and why
    assert time.perf_counter() - start < 3


def test_stratified_holdout() -> None:
    y = torch.tensor([0] * 10 + [1] * 5 + [2] * 2)
    fit, hold = stratified_holdout(y, 0.2, seed=0)
    assert sorted(torch.cat([fit, hold]).tolist()) == list(range(len(y)))
    assert torch.bincount(y[hold], minlength=3).tolist() == [2, 1, 0]  # round(0.4) = 0
    fit2, hold2 = stratified_holdout(y, 0.2, seed=0)
    assert torch.equal(hold, hold2) and torch.equal(fit, fit2)
    holds = {tuple(stratified_holdout(y, 0.2, seed=s)[1].tolist()) for s in range(5)}
    assert len(holds) > 1  # the split depends on the seed
    with pytest.raises(ValueError):
        stratified_holdout(y, 1.0, seed=0)


def test_restrict_to_khop_keeps_two_hop_neighbourhood() -> None:
    data = restrict_to_khop(toy_entities(), 2)
    assert data.num_nodes == 6  # {0,1,2} and {9,10,11}
    assert data.edge_index.max() < data.num_nodes
    assert data.edge_type.numel() == data.edge_index.size(1)
    assert data.info["khop"] == 2
    # labelled nodes are still the path's ends: degree 1 in each direction
    deg = torch.bincount(data.edge_index[1], minlength=data.num_nodes)
    assert deg[data.train_idx].tolist() == [1] and deg[data.test_idx].tolist() == [1]


@pytest.mark.realdata
def test_aifb_loads_read_only(aifb, data_dir: Path) -> None:
    assert (aifb.num_nodes, aifb.num_relations, aifb.num_classes) == (8285, 90, 4)
    assert (aifb.train_idx.numel(), aifb.test_idx.numel()) == (140, 36)
    assert aifb.edge_index.size(1) == 58086
    # PyG's processed/ went to the cache, not into the data root
    assert not (data_dir / "entities" / "aifb" / "processed").exists()
    assert (cache_dir("entities") / "aifb" / "processed").is_dir()
    assert filecmp.cmp(cache_dir("entities") / "aifb" / "raw" / "aifb_stripped.nt.gz",
                       data_dir / "entities" / "aifb" / "raw" / "aifb_stripped.nt.gz",
                       shallow=False)  # a link to (or copy of) the data root's file
    assert aifb.info["original_num_nodes"] == 8285 and "khop" not in aifb.info


def test_names_files_and_urls() -> None:
    assert DATASETS == ("aifb", "mutag", "bgs", "am")
    assert canonical_name("AIFB") == "aifb"
    with pytest.raises(UserError, match="unknown entity data set"):
        canonical_name("cora")
    assert raw_file_names("am")[0] == "am_stripped.nt.gz"
    assert download_url("bgs") == "https://data.dgl.ai/dataset/bgs.tgz"


def test_unavailable_error_has_a_portable_message(tmp_path: Path) -> None:
    with pytest.raises(DatasetUnavailableError) as info:
        load_entities("am", tmp_path, allow_download=False)
    err = info.value
    assert str(tmp_path) in str(err)  # the message names the directories searched ...
    assert str(tmp_path) not in err.portable  # ... the portable one only relative places
    assert "<data root>/entities/am/raw" in err.portable and "am_stripped.nt.gz" in err.portable
    assert "https://data.dgl.ai/dataset/am.tgz" in err.portable

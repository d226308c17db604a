"""End to end on the real AIFB benchmark (needs the data root; see tests/conftest.py)."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

import pytest
import torch

from gfbgcn.entity import cli
from gfbgcn.entity.data import load_entities
from gfbgcn.entity.model import EntityConfig
from gfbgcn.entity.train import train_once

pytestmark = pytest.mark.realdata


@pytest.fixture(scope="module")
def aifb(data_dir: Path, tmp_path_factory: pytest.TempPathFactory):
    """AIFB processed into the same temporary cache that tests/conftest.py gives each test."""
    threads = torch.get_num_threads()
    with pytest.MonkeyPatch.context() as mp:
        if "GFBGCN_CACHE" not in os.environ:
            mp.setenv("GFBGCN_CACHE", str(tmp_path_factory.getbasetemp() / "cache"))
        torch.set_num_threads(1)  # as the CLI does; faster on a small shared machine
        try:
            yield load_entities("aifb", data_dir, allow_download=False)
        finally:
            torch.set_num_threads(threads)


def test_aifb_loads_read_only(aifb, data_dir: Path) -> None:
    assert (aifb.num_nodes, aifb.num_relations, aifb.num_classes) == (8285, 90, 4)
    assert (aifb.train_idx.numel(), aifb.test_idx.numel()) == (140, 36)
    assert aifb.edge_index.size(1) == 58086
    # PyG's processed/ went to the cache, not into the data root
    assert not (data_dir / "entities" / "aifb" / "processed").exists()
    assert Path(aifb.info["root"]).resolve() != (data_dir / "entities").resolve()


@pytest.mark.parametrize("model", ["rgcn", "gfb-rgcn"])
def test_aifb_beats_majority_class(aifb, model: str) -> None:
    majority = int(torch.bincount(aifb.train_y).argmax())
    majority_acc = float((aifb.test_y == majority).float().mean())  # 15/36
    cfg = EntityConfig(model=model, hidden=16, num_bases=None, epochs=8)
    record = train_once(aifb, cfg, 0, aifb.train_idx, aifb.train_y,
                        {"test": (aifb.test_idx, aifb.test_y)})
    acc = record["metrics"]["test"]["accuracy"]
    assert acc > majority_acc + 0.25, (acc, majority_acc)
    assert record["final_train_loss"] < 0.7  # ln 4 = 1.39 at chance
    assert record["sec_per_epoch"] > 0 and record["peak_rss_mib"] > 0
    if model == "gfb-rgcn":
        assert len(record["lambdas"]) == 2


def test_cli_writes_report_and_resumes(aifb, data_dir: Path, tmp_path: Path) -> None:
    parser = argparse.ArgumentParser()
    cli.add_arguments(parser)
    out, raw = tmp_path / "entity.md", tmp_path / "raw"
    args = parser.parse_args([
        "--data-dir", str(data_dir), "--datasets", "aifb", "bgs", "--models", "gfb-rgcn",
        "--runs", "2", "--select-runs", "0", "--epochs", "3", "--offline",
        "--out", str(out), "--raw-dir", str(raw),
    ])
    assert cli.run(args) == 0
    text = out.read_text(encoding="utf-8")
    assert "| AIFB | GFB-R-GCN |" in text and "97.22" in text  # paper value beside ours
    assert "| BGS | GFB-R-GCN | not run: data unavailable offline |" in text
    assert "bgs_stripped.nt.gz" in text and "https://data.dgl.ai/dataset/bgs.tgz" in text
    runs = sorted(raw.glob("phase=test__*.json"))
    assert len(runs) == 2
    record = json.loads(runs[0].read_text(encoding="utf-8"))
    assert record["key"]["seed"] == 0 and record["config"]["model"] == "gfb-rgcn"
    assert "torch" in record["versions"]
    stamp = [os.stat(p).st_mtime_ns for p in runs]
    assert cli.run(args) == 0  # resumes: nothing retrained
    assert [os.stat(p).st_mtime_ns for p in runs] == stamp

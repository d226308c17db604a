"""One entity-classification run: the record it returns, and AIFB beating the majority class."""

from __future__ import annotations

import json

import pytest
import torch

from gfbgcn.entity.model import EntityConfig, build_entity_net
from gfbgcn.entity.train import train_once

from .conftest import toy_entities


@pytest.mark.parametrize("model", ["rgcn", "gfb-rgcn"])
def test_toy_run_record(model: str) -> None:
    data = toy_entities()
    cfg = EntityConfig(model=model, hidden=4, epochs=30, lr=0.05)
    record = train_once(data, cfg, 3, data.train_idx, data.train_y,
                        {"val": (data.train_idx, data.train_y), "test": (data.test_idx,
                                                                       data.test_y)})
    assert json.loads(json.dumps(record)) == record
    assert record["seed"] == 3 and record["config"] == cfg.to_dict() and record["epochs_run"] == 30
    assert set(record["metrics"]) == {"val", "test"}
    assert record["final_train_loss"] < 0.1  # one training node: fitted
    assert record["metrics"]["val"]["accuracy"] == 1.0
    test = record["metrics"]["test"]
    assert sum(map(sum, test["confusion_matrix"])) == 1 and test["loss"] > 0
    assert record["num_parameters"] == sum(
        p.numel() for p in build_entity_net(12, 2, 2, cfg).parameters())
    assert len(record["lambdas"]) == (2 if model == "gfb-rgcn" else 0)
    assert record["torch_threads"] == torch.get_num_threads()
    again = train_once(data, cfg, 3, data.train_idx, data.train_y,
                       {"test": (data.test_idx, data.test_y)})
    assert again["final_train_loss"] == record["final_train_loss"]  # the seed fixes the run


@pytest.mark.realdata
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

"""The protocol's cross-validation folds and one training run (a short MUTAG run)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
from torch_geometric.data import Data

from gfbgcn.graph_classification.batching import GraphBatcher
from gfbgcn.graph_classification.train import (
    GraphTrainConfig,
    GraphTrainHooks,
    Split,
    evaluate,
    make_splits,
    train_one,
)


def test_splits_stratified_disjoint_covering() -> None:
    rng = np.random.default_rng(0)
    y = rng.choice(3, size=203, p=[0.6, 0.3, 0.1])
    splits = make_splits(y, folds=10, seed=3)
    assert [s.fold for s in splits] == list(range(10))
    all_test = np.concatenate([s.test for s in splits])
    assert np.array_equal(np.sort(all_test), np.arange(len(y)))  # test folds partition
    counts = np.bincount(y, minlength=3)
    test_sets = [set(s.test.tolist()) for s in splits]
    for s in splits:
        parts = [set(s.train.tolist()), set(s.val.tolist()), set(s.test.tolist())]
        assert sum(map(len, parts)) == len(y)
        assert set.union(*parts) == set(range(len(y)))  # disjoint and covering
        assert set(s.val.tolist()) in test_sets and set(s.val.tolist()) != parts[2]
        for part in (s.test, s.val):  # stratified: each class within one of its share
            per_class = np.bincount(y[part], minlength=3)
            assert np.all(np.abs(per_class - counts / 10) <= 1)
    again = make_splits(y, folds=10, seed=3)
    assert all(np.array_equal(a.val, b.val) for a, b in zip(splits, again))
    other = make_splits(y, folds=10, seed=4)
    assert any(not np.array_equal(a.test, b.test) for a, b in zip(splits, other))


@pytest.mark.realdata
@pytest.mark.parametrize("model", ["gcn", "gfb-sage"])
def test_short_mutag_run_beats_majority(data_dir: Path, model: str) -> None:
    from gfbgcn.graph_classification.data import load_graph_dataset

    ds = load_graph_dataset("MUTAG", data_dir)
    assert (ds.num_features, ds.num_classes, len(ds.graphs)) == (7, 2, 188)
    y = ds.y.numpy()
    split = make_splits(y, folds=10, seed=0)[0]
    majority = np.bincount(y[split.test]).max() / len(split.test)
    cfg = GraphTrainConfig(epochs=40, patience=40, batch_size=32)
    rec = train_one(model, ds.graphs, split, ds.num_features, ds.num_classes, 32, 2, cfg, 0)
    assert rec["test_acc"] > majority, (rec, majority)
    assert rec["val_acc"] > np.bincount(y[split.val]).max() / len(split.val) - 1e-9


def _toy_graphs(n: int = 24) -> list[Data]:
    """Paths (class 0) and stars (class 1) of 3-6 nodes with constant features."""
    graphs = []
    for i in range(n):
        size = 3 + i % 4
        if i % 2:
            pairs = [(0, j) for j in range(1, size)]
        else:
            pairs = [(j, j + 1) for j in range(size - 1)]
        ei = torch.tensor(pairs).t()
        graphs.append(Data(x=torch.ones(size, 2), edge_index=torch.cat([ei, ei.flip(0)], 1),
                           y=torch.tensor([i % 2])))
    return graphs


def test_train_one_record_and_determinism() -> None:
    graphs = _toy_graphs()
    split = make_splits([g.y.item() for g in graphs], folds=4, seed=0)[1]
    cfg = GraphTrainConfig(epochs=6, patience=2, batch_size=8)
    rec = train_one("gfb-gcn", graphs, split, 2, 2, 8, 2, cfg, seed=3)
    assert json.loads(json.dumps(rec)) == rec
    assert set(rec) == {"val_loss", "val_acc", "test_loss", "test_acc", "best_epoch",
                        "epochs_run", "num_parameters", "lambda", "seconds", "device"}
    assert rec["device"] == "cpu"  # the default of train_one (the CLI passes --device)
    assert 1 <= rec["best_epoch"] <= rec["epochs_run"] <= 6
    assert len(rec["lambda"]) == 2  # one learned lambda per GFB layer
    again = train_one("gfb-gcn", graphs, split, 2, 2, 8, 2, cfg, seed=3,
                      batcher=GraphBatcher(graphs))
    assert {k: v for k, v in again.items() if k != "seconds"} == \
        {k: v for k, v in rec.items() if k != "seconds"}
    assert train_one("sage", graphs, split, 2, 2, 8, 1, cfg, seed=3)["lambda"] == []


def test_evaluate_is_cross_entropy_and_accuracy_in_eval_mode() -> None:
    from gfbgcn.graph_classification.model import build_classifier

    graphs = _toy_graphs(6)
    batch = GraphBatcher(graphs).batch(range(6))
    torch.manual_seed(0)
    model = build_classifier("gcn", 2, 4, 1, 2, dropout=0.9)
    loss, acc = evaluate(model, batch)
    assert not model.training
    logits = model(batch.x, batch.edge_index, batch.batch)
    assert loss == pytest.approx(float(torch.nn.functional.cross_entropy(logits, batch.y)))
    assert acc == pytest.approx(float((logits.argmax(-1) == batch.y).float().mean()))


def test_split_is_a_frozen_record() -> None:
    split = make_splits([0, 1] * 10, folds=5, seed=1)[2]
    assert isinstance(split, Split) and split.fold == 2
    assert len(split.test) == 4 and len(split.val) == 4 and len(split.train) == 12
    assert GraphTrainConfig() == GraphTrainConfig(epochs=100, patience=20, lr=0.01,
                                                  weight_decay=0.0, batch_size=64, dropout=0.5)


def test_hooks_are_called_at_their_stages_and_the_base_hooks_change_nothing() -> None:
    graphs = _toy_graphs()
    split = make_splits([g.y.item() for g in graphs], folds=4, seed=0)[1]
    cfg = GraphTrainConfig(epochs=3, patience=100, batch_size=8)
    calls: list[str] = []

    class Watch(GraphTrainHooks):
        def build_model(self, *args):
            calls.append("build")
            return super().build_model(*args)

        def optimizer(self, model, cfg):
            calls.append("optimizer")
            return super().optimizer(model, cfg)

        def before_step(self, model):
            assert all(p.grad is not None for p in model.parameters())
            calls.append("step")

        def end_epoch(self, optimizer, epoch):
            calls.append(f"epoch {epoch}")

    def run(hooks: GraphTrainHooks | None) -> dict:
        rec = train_one("gfb-gcn", graphs, split, 2, 2, 8, 2, cfg, seed=3, hooks=hooks)
        return {k: v for k, v in rec.items() if k != "seconds"}

    plain = run(None)
    assert run(GraphTrainHooks()) == plain == run(Watch())
    batches = -(-len(split.train) // cfg.batch_size)
    assert calls == ["build", "optimizer"] + (["step"] * batches + ["epoch 1"]) \
        + (["step"] * batches + ["epoch 2"]) + (["step"] * batches + ["epoch 3"])

    class NoStep(GraphTrainHooks):
        def before_step(self, model):
            for p in model.parameters():
                p.grad.zero_()

    frozen = run(NoStep())  # zero gradients, no weight decay: Adam leaves the weights
    assert frozen["lambda"] == [1.0, 1.0] and frozen != plain

"""Runs trained as one batched model equal the same runs one by one (``train_one``, same seed,
float64): every epoch's validation loss and accuracy, the stopping epochs, the chosen weights,
the records and the test predictions; a member's stopping moves no other member."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import torch

from gfbgcn.graph_classification.batched import train_batch
from gfbgcn.graph_classification.batching import GraphBatcher
from gfbgcn.graph_classification.model import MODELS
from gfbgcn.graph_classification.train import (
    GraphTrainConfig,
    GraphTrainHooks,
    Split,
    evaluate,
    make_splits,
    train_one,
)
from gfbgcn.nn.models import GraphClassifier
from tests.graph_classification.toydata import random_graphs

TOL = 1e-10
#: (hidden, layers): two widths, depths 1-3, given in no particular order
SHAPES = [(8, 1), (8, 3), (4, 2), (8, 2), (4, 1)]
CFG = GraphTrainConfig(epochs=15, patience=3, batch_size=8)  # dropout 0.5, as the protocol


@pytest.fixture(autouse=True)
def _float64() -> Iterator[None]:
    before = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    yield
    torch.set_default_dtype(before)


def _data() -> tuple[list, Split, GraphBatcher]:
    graphs = random_graphs(60, seed=1)
    for g in graphs:
        g.x = g.x.double()
    split = make_splits([int(g.y) for g in graphs], folds=4, seed=0)[1]
    return graphs, split, GraphBatcher(graphs)


class _Watch(GraphTrainHooks):
    """Keeps ``train_one``'s classifier and its validation loss and accuracy after each epoch
    (``evaluate`` draws nothing and the next epoch sets training mode again)."""

    def __init__(self, batcher: GraphBatcher, split: Split) -> None:
        self.val = batcher.batch(split.val)
        self.undirected = batcher.undirected
        self.history: list[tuple[float, float]] = []
        self.model: GraphClassifier | None = None

    def build_model(self, *args: Any) -> GraphClassifier:
        self.model = super().build_model(*args)
        return self.model

    def end_epoch(self, optimizer: torch.optim.Optimizer, epoch: int) -> None:
        assert self.model is not None
        self.history.append(evaluate(self.model, self.val, self.undirected))


def _one_by_one(model: str, shape: tuple[int, int], seed: int = 5
                ) -> tuple[dict[str, Any], _Watch]:
    graphs, split, batcher = _data()
    watch = _Watch(batcher, split)
    rec = train_one(model, graphs, split, 3, 3, *shape, CFG, seed, batcher=batcher, hooks=watch)
    return rec, watch


def _assert_same_history(mine: list[tuple[float, float]], own: list[tuple[float, float]]
                         ) -> None:
    """Per epoch: the validation loss to rounding, the accuracy exactly."""
    assert [acc for _, acc in mine] == [acc for _, acc in own]
    assert [loss for loss, _ in mine] == pytest.approx([loss for loss, _ in own], abs=TOL)


def _assert_same_run(batched: Any, rec: dict[str, Any], watch: _Watch) -> None:
    """The batched member and ``train_one``'s run agree on everything but the wall time."""
    for key in ("best_epoch", "epochs_run", "num_parameters", "device"):
        assert batched.record[key] == rec[key], key
    for key in ("val_loss", "val_acc", "test_loss", "test_acc"):
        assert batched.record[key] == pytest.approx(rec[key], abs=TOL), key
    assert batched.record["lambda"] == pytest.approx(rec["lambda"], abs=TOL)
    assert len(batched.history) == rec["epochs_run"] == len(watch.history)
    _assert_same_history(batched.history, watch.history)
    own, mine = watch.model.state_dict(), batched.model.state_dict()
    assert own.keys() == mine.keys()
    for name in own:
        torch.testing.assert_close(mine[name], own[name], rtol=0, atol=TOL)
    graphs, split, batcher = _data()
    test = batcher.batch(split.test)
    for net in (watch.model, batched.model):
        net.eval()
    torch.testing.assert_close(batched.model(test.x, test.edge_index, test.batch),
                               watch.model(test.x, test.edge_index, test.batch),
                               rtol=0, atol=TOL)


@pytest.mark.parametrize("model", MODELS)
def test_a_batch_equals_its_runs_one_by_one(model: str) -> None:
    graphs, split, batcher = _data()
    rng_before = torch.random.get_rng_state()
    runs = train_batch(model, graphs, split, 3, 3, SHAPES, CFG, seed=5, batcher=batcher)
    assert torch.equal(torch.random.get_rng_state(), rng_before)  # the caller's, untouched
    stops = {run.record["epochs_run"] for run in runs}
    assert len(stops) >= 2  # members stopped at different epochs within the batch
    for shape, run in zip(SHAPES, runs):
        assert run.record["batched_runs"] == len(SHAPES) and run.record["seconds"] > 0
        _assert_same_run(run, *_one_by_one(model, shape))


def test_a_stopping_member_moves_no_other() -> None:
    """Members of one width train on after the deepest one stops (its rows leave every stack
    and Adam's state, the others' rows shift): each gets the epochs it gets alone, and the
    stopped member keeps its own best weights."""
    graphs, split, batcher = _data()
    shapes = [(8, 1), (8, 3), (8, 2)]  # stacked deepest first: 8x3's rows come first
    runs = train_batch("gcn", graphs, split, 3, 3, shapes, CFG, seed=5, batcher=batcher)
    epochs = [run.record["epochs_run"] for run in runs]
    assert epochs[1] < min(epochs[0], epochs[2])  # 8x3 stops while the other two train on
    for shape, run in zip(shapes, runs):
        alone = train_batch("gcn", graphs, split, 3, 3, [shape], CFG, seed=5,
                            batcher=batcher)[0]
        assert alone.record["batched_runs"] == 1
        _assert_same_history(run.history, alone.history)
        for name, value in alone.model.state_dict().items():
            torch.testing.assert_close(run.model.state_dict()[name], value, rtol=0, atol=TOL)
    _assert_same_run(runs[1], *_one_by_one("gcn", shapes[1]))


def test_shapes_are_required() -> None:
    graphs, split, _ = _data()
    with pytest.raises(ValueError, match="at least one"):
        train_batch("gcn", graphs, split, 3, 3, [], CFG, seed=0)

"""The training loops' hooks (:mod:`gfbgcn.text.train.hooks`): where they are called, that
read-only hooks change nothing, that a hook's change to the step is applied, and what
``on_epoch`` is told."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from gfbgcn.text.corpus.labels import multilabel_metrics
from gfbgcn.text.train.config import TrainConfig
from gfbgcn.text.train.full_batch import _f1_scores
from gfbgcn.text.train.hooks import TrainHooks
from gfbgcn.text.train.run import train_text


def test_read_only_hooks_see_the_validated_weights_and_change_nothing(trained):
    """``setup`` runs once before the first epoch, ``before_step`` once per epoch in training
    mode; its values join each epoch's history; the run equals one without hooks."""
    graph, _ = trained
    cfg = TrainConfig(model="gin", epochs=4, hidden=8, seed=5, patience=100,
                      layer_options={"eps": -1.0, "train_eps": False})
    seen = []

    class Watch(TrainHooks):
        def setup(self, setup):
            seen.append(("setup", type(setup.model).__name__))

        def before_step(self, setup, epoch):
            seen.append((epoch, setup.model.training))
            return {"marker": float(epoch)}

    plain = train_text(graph, cfg, progress=False)
    hooked = train_text(graph, cfg, progress=False, hooks=Watch())
    assert seen == [("setup", "WholeModel")] + [(e, True) for e in range(1, 5)]
    assert [h["marker"] for h in hooked.history] == [1.0, 2.0, 3.0, 4.0]
    assert [h["val_loss"] for h in hooked.history] == [h["val_loss"] for h in plain.history]
    assert hooked.test == plain.test
    assert plain.gin_eps == hooked.gin_eps == [-1.0, -1.0]  # held fixed, recorded per layer
    assert plain.record()["gin_eps"] == [-1.0, -1.0] and plain.lam is None
    assert train_text(graph, cfg, progress=False, hooks=TrainHooks()).history[-1]["val_loss"] \
        == plain.history[-1]["val_loss"]
    with pytest.raises(ValueError, match="hooks are for full-batch"):
        train_text(graph, TrainConfig(model="gcn", batch_size=4), progress=False,
                   hooks=Watch())


def test_a_hook_may_change_the_step(trained):
    """What ``before_step`` does to the gradients is what the optimiser applies."""
    graph, _ = trained
    cfg = TrainConfig(model="gcn", epochs=3, hidden=8, seed=2, patience=100)

    class ZeroGrad(TrainHooks):
        def before_step(self, setup, epoch):
            for p in setup.model.parameters():
                p.grad = torch.zeros_like(p) if p.grad is not None else None
            return {}

    frozen = train_text(graph, cfg, progress=False, hooks=ZeroGrad())
    losses = [h["val_loss"] for h in frozen.history]
    assert losses == [losses[0]] * 3  # Adam with zero gradients and no decay: no move
    assert [h["val_loss"] for h in train_text(graph, cfg, progress=False).history] != losses


@pytest.mark.parametrize("batch_size", [0, 4])
def test_on_epoch_is_told_each_entry_as_recorded_and_changes_nothing(trained, batch_size):
    """Full batch and mini-batch: one call per epoch, in order, with a copy of the entry (a
    callback that scribbles on it does not change the history), and the run is the plain one
    bit for bit."""
    graph, _ = trained
    cfg = TrainConfig(model="gcn", epochs=4, hidden=8, seed=1, patience=100,
                      batch_size=batch_size)
    told = []

    def on_epoch(entry):
        told.append(dict(entry))
        entry["val_loss"] = -1.0

    plain = train_text(graph, cfg, progress=False)
    watched = train_text(graph, cfg, progress=False, on_epoch=on_epoch)
    assert [e["epoch"] for e in told] == [1, 2, 3, 4]
    assert [{k: v for k, v in e.items() if k != "seconds"} for e in told] == \
        [{k: v for k, v in e.items() if k != "seconds"} for e in watched.history]
    assert [e["val_loss"] for e in watched.history] == [e["val_loss"] for e in plain.history]
    assert (watched.probabilities == plain.probabilities).all()
    assert ("batches" in told[0]) == bool(batch_size)


def test_multi_label_epochs_record_the_validation_f1_scores(trained):
    """A multi-label history holds each epoch's validation micro and macro F1 at 0.5, the
    values :func:`~gfbgcn.text.corpus.labels.multilabel_metrics` gives."""
    graph, _ = trained
    rng = np.random.default_rng(0)
    targets = (rng.random((graph.num_docs, 3)) < 0.5).astype(np.float32)
    targets[:, 2] = 0  # a label no document holds: F1 0 in the macro average
    result = train_text(graph, TrainConfig(model="gcn", epochs=3, hidden=8, seed=0),
                        progress=False, multilabel_targets=targets)
    assert all({"val_micro_f1", "val_macro_f1"} <= set(e) for e in result.history)
    for shape, share in (((30, 4), 0.5), ((9, 3), 0.1), ((0, 2), 0.5)):
        truth, predicted = rng.random(shape) < share, rng.random(shape) < 0.4
        truth[:, 0] = predicted[:, 0] = False
        got = _f1_scores(torch.from_numpy(predicted), torch.from_numpy(truth))
        want = multilabel_metrics(truth, predicted)
        assert float(got["val_micro_f1"]) == pytest.approx(want["micro_f1"], abs=1e-12)
        assert float(got["val_macro_f1"]) == pytest.approx(want["macro_f1"], abs=1e-12)

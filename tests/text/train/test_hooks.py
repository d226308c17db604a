"""The full-batch loop's hooks (:class:`gfbgcn.text.train.hooks.TrainHooks`): where they are
called, that read-only hooks change nothing, and that a hook's change to the step is applied."""

from __future__ import annotations

import pytest
import torch

from gfbgcn.text.train.config import TrainConfig
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

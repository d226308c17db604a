"""Early stopping: patience, both modes, and restoring the best weights."""

from __future__ import annotations

import pytest
import torch

from gfbgcn.core.early_stopping import EarlyStopping


def test_early_stopping_restores_best_weights():
    model = torch.nn.Linear(2, 1)
    stopper = EarlyStopping(patience=2, mode="min")
    losses = [3.0, 1.0, 2.0, 2.5]
    best_weight = None
    for epoch, loss in enumerate(losses, 1):
        with torch.no_grad():
            model.weight.fill_(float(epoch))
        if loss == min(losses):
            best_weight = model.weight.clone()
        stop = stopper.step(loss, model, epoch)
        assert stop == (epoch == 4)
    stopper.restore(model)
    assert torch.equal(model.weight, best_weight) and stopper.best_epoch == 2


def test_max_mode_min_delta_and_copies() -> None:
    model = torch.nn.Linear(1, 1)
    stopper = EarlyStopping(patience=3, mode="max", min_delta=0.05)
    with torch.no_grad():
        model.weight.fill_(1.0)
    assert not stopper.step(0.50, model, 1)
    with torch.no_grad():
        model.weight.fill_(2.0)  # the stored state is a copy, not a view of the weights
    assert not stopper.improves(0.52) and stopper.improves(0.56)  # asks, changes nothing
    assert (stopper.best, stopper.best_epoch, stopper.bad_epochs) == (0.50, 1, 0)
    assert not stopper.step(0.52, model, 2)  # within min_delta: not an improvement
    assert not stopper.step(0.56, model, 3)  # improvement
    assert (stopper.best, stopper.best_epoch, stopper.bad_epochs) == (0.56, 3, 0)
    assert not stopper.step(0.1, model, 4)
    assert not stopper.step(0.1, model, 5)
    assert stopper.step(0.1, model, 6)
    with torch.no_grad():
        model.weight.fill_(9.0)
    stopper.restore(model)
    assert model.weight.item() == 2.0


def test_restore_before_any_step_is_a_no_op_and_arguments_are_checked() -> None:
    model = torch.nn.Linear(1, 1)
    before = model.weight.clone()
    EarlyStopping().restore(model)
    assert torch.equal(model.weight, before)
    with pytest.raises(ValueError, match="mode"):
        EarlyStopping(mode="median")
    with pytest.raises(ValueError, match="patience"):
        EarlyStopping(patience=0)

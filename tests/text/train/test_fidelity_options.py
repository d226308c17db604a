"""Trainer options of the fidelity experiments (lambda lr / weight decay, clipping, warm-up):
the defaults are the paper's protocol bit for bit; each option does what it says."""

from __future__ import annotations

import pytest

from gfbgcn.text.train.config import TrainConfig
from gfbgcn.text.train.full_batch import _set_warmup_lr
from gfbgcn.text.train.models import build_text_model
from gfbgcn.text.train.optim import make_optimizer
from gfbgcn.text.train.run import train_text


def _hist(result) -> list[tuple[float, float]]:
    return [(h["val_loss"], h.get("lambda", 0.0)) for h in result.history]


def test_default_options_change_nothing(trained):
    graph, _ = trained
    base = TrainConfig(model="gfb-max", epochs=4, hidden=8, seed=1)
    same = TrainConfig(model="gfb-max", epochs=4, hidden=8, seed=1, lambda_lr=None,
                       clip_norm=None, warmup_epochs=0)
    assert _hist(train_text(graph, base, progress=False)) == \
        _hist(train_text(graph, same, progress=False))


@pytest.mark.parametrize("option", [{"lambda_lr": 0.5}, {"clip_norm": 1e-4},
                                    {"warmup_epochs": 3}, {"lambda_weight_decay": 10.0}])
def test_each_option_changes_the_run(trained, option):
    graph, _ = trained
    base = train_text(graph, TrainConfig(model="gfb-max", epochs=4, hidden=8, seed=1),
                      progress=False)
    other = train_text(graph, TrainConfig(model="gfb-max", epochs=4, hidden=8, seed=1,
                                          **option), progress=False)
    assert _hist(other) != _hist(base)


def test_lambda_group_and_warmup_schedule():
    model = build_text_model("gfb-diag", 10, 3, hidden=4)
    opt = make_optimizer(model, TrainConfig(model="gfb-diag", lr=0.02, weight_decay=0.0,
                                            lambda_lr=0.001, lambda_weight_decay=0.1))
    rest, lam = opt.param_groups
    assert lam["params"] == [model.conv2.lam] and lam["lr"] == 0.001
    assert lam["weight_decay"] == 0.1 and rest["lr"] == 0.02
    lrs = []
    for epoch in (1, 2, 4, 9):
        _set_warmup_lr(opt, epoch, 4)
        lrs.append([g["lr"] for g in opt.param_groups])
    assert lrs == [[0.005, 0.00025], [0.01, 0.0005], [0.02, 0.001], [0.02, 0.001]]
    # models without lambda: one group
    assert len(make_optimizer(build_text_model("gcn", 10, 3, hidden=4),
                              TrainConfig(model="gcn", lambda_lr=0.1)).param_groups) == 1


def test_options_are_full_batch_only():
    with pytest.raises(ValueError, match="full-batch"):
        TrainConfig(batch_size=8, clip_norm=1.0)
    with pytest.raises(ValueError, match="warmup"):
        TrainConfig(warmup_epochs=-1)

"""The fidelity experiments' options object: ranges, the options each task takes, the Adam
groups with ``lambda`` apart."""

from __future__ import annotations

import pytest
import torch

from gfbgcn.reproduce.fidelity.options import (
    TASK_OPTIONS,
    ExperimentOptions,
    lambda_param_groups,
    options_of,
)
from gfbgcn.text.train.models import build_text_model


@pytest.mark.parametrize("bad", [{"lambda_lr": 0.0}, {"lambda_lr": float("nan")},
                                 {"clip_norm": -1.0}, {"lambda_weight_decay": -0.1},
                                 {"warmup_epochs": -1}, {"lr_decay_step": -2},
                                 {"lr_decay_factor": 0.0}, {"readout": "max"}])
def test_out_of_range_options_are_refused(bad: dict) -> None:
    with pytest.raises(ValueError, match=next(iter(bad))):
        ExperimentOptions(**bad)


def test_each_task_takes_only_the_options_its_runner_implements() -> None:
    assert options_of({"model": "gcn"}, "text") == ExperimentOptions()
    assert options_of({"options": {"readout": "sum"}}, "graphs").readout == "sum"
    with pytest.raises(ValueError, match=r"options \['readout'\] do not apply to text"):
        options_of({"options": {"readout": "sum"}}, "text")
    with pytest.raises(ValueError, match="do not apply to entity"):
        options_of({"options": {"clip_norm": 1.0}}, "entity")
    with pytest.raises(TypeError):
        ExperimentOptions(no_such_option=1)  # type: ignore[call-arg]
    assert set(ExperimentOptions().record("graphs")) == set(TASK_OPTIONS["graphs"])
    assert ExperimentOptions(clip_norm=2.0).record("text")["clip_norm"] == 2.0


def test_lambda_groups() -> None:
    model = build_text_model("gfb-diag", 10, 3, hidden=4)
    one = lambda_param_groups(model, 0.02, 0.0, ExperimentOptions())
    assert len(one) == 1 and len(one[0]["params"]) == len(list(model.parameters()))
    model.conv2.lam.requires_grad_(False)  # frozen lambda: left out, nothing to group
    assert len(lambda_param_groups(model, 0.02, 0.0, ExperimentOptions(lambda_lr=0.1))) == 1
    model.conv2.lam.requires_grad_(True)
    rest, lam = lambda_param_groups(model, 0.02, 0.5, ExperimentOptions(lambda_lr=0.1))
    assert lam == {"params": [model.conv2.lam], "lr": 0.1, "weight_decay": 0.5}
    assert all(p is not model.conv2.lam for p in rest["params"])
    assert isinstance(torch.optim.Adam([rest, lam], lr=0.02), torch.optim.Adam)

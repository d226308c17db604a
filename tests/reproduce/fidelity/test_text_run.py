"""The text options of the fidelity experiments through the trainer's hooks (lambda lr / weight
decay, clipping, warm-up, undropped second-order term, the test trace): no options are the
paper's protocol bit for bit; each option does what it says."""

from __future__ import annotations

import pytest
import torch

from gfbgcn.reproduce.fidelity.options import ExperimentOptions
from gfbgcn.reproduce.fidelity.split_dropout import UndroppedSecondOrder
from gfbgcn.reproduce.fidelity.text_run import FidelityTextHooks, set_warmup_lr
from gfbgcn.text.graph.text_graph import GraphConfig, build_text_graph
from gfbgcn.text.tokenize.clean import whitespace_tokenize
from gfbgcn.text.train.config import TrainConfig
from gfbgcn.text.train.models import build_text_model
from gfbgcn.text.train.optim import make_optimizer
from gfbgcn.text.train.run import train_text
from gfbgcn.text.train.setup import RunSetup
from tests.text.toydata import toy_corpus


@pytest.fixture(scope="module")
def graph():
    return build_text_graph(toy_corpus(), GraphConfig(window=3, min_freq=1, stop_words=None),
                            whitespace_tokenize, cache=False)


def _hist(result) -> list[tuple[float, float]]:
    return [(h["val_loss"], h.get("lambda", 0.0)) for h in result.history]


def _train(graph, options: ExperimentOptions | None, **config):
    cfg = TrainConfig(**{"model": "gfb-max", "epochs": 4, "hidden": 8, "seed": 1, **config})
    hooks = None if options is None else FidelityTextHooks(options, cfg)
    return train_text(graph, cfg, progress=False, hooks=hooks)


def test_default_options_change_nothing(graph):
    assert _hist(_train(graph, None)) == _hist(_train(graph, ExperimentOptions()))


@pytest.mark.parametrize("option", [{"lambda_lr": 0.5}, {"clip_norm": 1e-4},
                                    {"warmup_epochs": 3}, {"lambda_weight_decay": 10.0},
                                    {"second_order_dropout": False}])
def test_each_option_changes_the_run(graph, option):
    assert _hist(_train(graph, ExperimentOptions(**option))) != _hist(_train(graph, None))


def _setup(model: torch.nn.Module, config: TrainConfig) -> RunSetup:
    empty = torch.empty(0, dtype=torch.long)
    return RunSetup(model, make_optimizer(model, config), torch.empty(0), empty, False, 3,
                    empty, empty, empty, None, torch.device("cpu"))


def test_lambda_group_and_warmup_schedule():
    cfg = TrainConfig(model="gfb-diag", lr=0.02, weight_decay=0.0)
    model = build_text_model("gfb-diag", 10, 3, hidden=4)
    s = _setup(model, cfg)
    FidelityTextHooks(ExperimentOptions(lambda_lr=0.001, lambda_weight_decay=0.1), cfg).setup(s)
    rest, lam = s.optimizer.param_groups
    assert lam["params"] == [model.conv2.lam] and lam["lr"] == 0.001
    assert lam["weight_decay"] == 0.1 and rest["lr"] == 0.02
    lrs = []
    for epoch in (1, 2, 4, 9):
        set_warmup_lr(s.optimizer, epoch, 4)
        lrs.append([g["lr"] for g in s.optimizer.param_groups])
    assert lrs == [[0.005, 0.00025], [0.01, 0.0005], [0.02, 0.001], [0.02, 0.001]]
    # models without lambda: one group
    gcn = _setup(build_text_model("gcn", 10, 3, hidden=4), TrainConfig(model="gcn"))
    FidelityTextHooks(ExperimentOptions(lambda_lr=0.1), TrainConfig(model="gcn")).setup(gcn)
    assert len(gcn.optimizer.param_groups) == 1


def test_the_undropped_second_order_term_wraps_the_model_and_keeps_its_weights(graph):
    result = _train(graph, ExperimentOptions(second_order_dropout=False), model="gfb-diag")
    assert isinstance(result.model, UndroppedSecondOrder) and result.lam is not None
    with pytest.raises(ValueError, match="GFB second layer"):
        _train(graph, ExperimentOptions(second_order_dropout=False), model="gcn")


def test_options_need_full_batch_training(graph):
    with pytest.raises(ValueError, match="full-batch"):
        _train(graph, ExperimentOptions(clip_norm=1.0), model="gcn", batch_size=4)


def test_the_trace_test_accuracy_is_that_of_the_kept_weights(graph) -> None:
    """At the kept epoch the traced test accuracy equals the run's reported test accuracy,
    and tracing changes nothing else."""
    result = _train(graph, ExperimentOptions(trace_test=True), model="gcn", epochs=6,
                    patience=100, seed=0)
    trace = [h["test_acc"] for h in result.history]
    assert len(trace) == 6 and all(0.0 <= a <= 1.0 for a in trace)
    assert trace[result.best_epoch - 1] == pytest.approx(result.test["accuracy"], abs=1e-6)
    plain = _train(graph, None, model="gcn", epochs=6, patience=100, seed=0)
    assert _hist(plain) == _hist(result)


def test_a_text_row_records_its_options_and_traces(tmp_path, monkeypatch, graph) -> None:
    """Through ``run_row``: one record per seed with the configuration, its options and the
    per-epoch traces of a ``trace_test`` configuration; resumable."""
    from gfbgcn.reproduce.fidelity import text_run
    from gfbgcn.reproduce.fidelity.experiment import Config, Row
    from gfbgcn.reproduce.fidelity.run import run_row
    from gfbgcn.reproduce.store import RunStore

    monkeypatch.setattr(text_run, "load_benchmark", lambda name, data_dir: name)
    monkeypatch.setattr(text_run, "build_text_graph", lambda corpus: graph)
    spec = {"model": "gfb-diag", "train": {"epochs": 3, "hidden": 8, "patience": 100},
            "options": {"trace_test": True, "second_order_dropout": False, "clip_norm": 1.0}}
    row = Row("t", "text", "toy", "gfb-diag", "toy", (Config("a", "a", spec, seeds=2),))
    store = RunStore(tmp_path)
    assert run_row(row, store) == 2
    rec = store.load({"row": "t", "config": "a", "seed": 1})
    assert rec["spec"] == spec and rec["config"]["seed"] == 1
    assert rec["options"]["clip_norm"] == 1.0 and rec["options"]["second_order_dropout"] is False
    assert len(rec["test_acc_history"]) == len(rec["val_acc_history"]) == 3
    assert len(rec["lambda_history"]) == 3
    assert run_row(row, store) == 0

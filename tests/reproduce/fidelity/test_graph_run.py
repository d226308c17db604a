"""The graph options of the fidelity experiments through the trainer's hooks: no options are
the protocol bit for bit, each option changes the run and does what it says."""

from __future__ import annotations

import torch
from torch_geometric.data import Data

from gfbgcn.graph_classification.data import GraphDataset
from gfbgcn.graph_classification.model import build_classifier
from gfbgcn.graph_classification.train import GraphTrainConfig, make_splits, train_one
from gfbgcn.reproduce.fidelity.graph_run import FidelityGraphHooks
from gfbgcn.reproduce.fidelity.options import ExperimentOptions


def _random_dataset(n: int = 24) -> GraphDataset:
    gen = torch.Generator().manual_seed(0)
    graphs = []
    for i in range(n):
        size = 3 + i % 4
        ei = torch.tensor([(j, j + 1) for j in range(size - 1)]).t()
        graphs.append(Data(x=torch.randn(size, 3, generator=gen),
                           edge_index=torch.cat([ei, ei.flip(0)], 1), y=torch.tensor([i % 2])))
    return GraphDataset("RANDOM", graphs, 3, 2, "random (3)", {"num_graphs": n})


def _run(options: ExperimentOptions | None, model: str = "gfb-gcn") -> dict:
    ds = _random_dataset()
    split = make_splits(ds.y.numpy(), 4, 0)[0]
    hooks = None if options is None else FidelityGraphHooks(options)
    rec = train_one(model, ds.graphs, split, ds.num_features, ds.num_classes, 8, 2,
                    GraphTrainConfig(epochs=3, patience=100, batch_size=4), seed=3, hooks=hooks)
    rec.pop("seconds")
    return rec


def test_default_options_are_the_protocol_bit_for_bit() -> None:
    assert _run(None) == _run(ExperimentOptions())


def test_each_option_changes_the_run() -> None:
    base = _run(None)
    for opts in (ExperimentOptions(conv={"second_norm": "l2"}), ExperimentOptions(lambda_lr=0.5),
                 ExperimentOptions(clip_norm=1e-3), ExperimentOptions(readout="sum"),
                 ExperimentOptions(lr_decay_factor=0.1, lr_decay_step=1)):
        assert _run(opts)["test_loss"] != base["test_loss"], opts


def test_lambda_group_has_its_own_lr_and_decay() -> None:
    net = build_classifier("gfb-gcn", 2, 4, 2, 2)
    hooks = FidelityGraphHooks(ExperimentOptions(lambda_lr=0.5, lambda_weight_decay=0.0))
    opt = hooks.optimizer(net, GraphTrainConfig(lr=0.01, weight_decay=0.1))
    rest, lam = opt.param_groups
    assert [p.shape for p in lam["params"]] == [torch.Size([]), torch.Size([])]
    assert lam["lr"] == 0.5 and lam["weight_decay"] == 0.0
    assert rest["lr"] == 0.01 and rest["weight_decay"] == 0.1
    assert len(rest["params"]) + 2 == len(list(net.parameters()))
    plain = FidelityGraphHooks(ExperimentOptions()).optimizer(net, GraphTrainConfig())
    assert len(plain.param_groups) == 1


def test_model_options_clipping_and_decay() -> None:
    hooks = FidelityGraphHooks(ExperimentOptions(conv={"summarize": "max"}, readout="sum",
                                                 clip_norm=1.0, lr_decay_factor=0.5,
                                                 lr_decay_step=2))
    net = hooks.build_model("gfb-gcn", 2, 4, 2, 2, 0.5)
    assert net.readout == "sum" and all(c.summarize == "max" for c in net.convs)
    for p in net.parameters():
        p.grad = torch.full_like(p, 10.0)
    hooks.before_step(net)
    norm = torch.linalg.vector_norm(torch.stack([p.grad.norm() for p in net.parameters()]))
    assert abs(float(norm) - 1.0) < 1e-5
    opt = hooks.optimizer(net, GraphTrainConfig(lr=0.01))
    lrs = []
    for epoch in range(1, 6):
        hooks.end_epoch(opt, epoch)
        lrs.append(opt.param_groups[0]["lr"])
    assert lrs == [0.01, 0.005, 0.005, 0.0025, 0.0025]

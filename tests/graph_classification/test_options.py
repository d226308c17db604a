"""RunOptions of the graph trainer (fidelity experiments): the defaults change nothing, each
option does what it says."""

from __future__ import annotations

import torch
from torch_geometric.data import Data
from torch_geometric.nn import global_add_pool

from gfbgcn.graph_classification.data import GraphDataset
from gfbgcn.graph_classification.model import build_classifier
from gfbgcn.graph_classification.train import (
    RunOptions,
    TrainConfig,
    make_optimizer,
    make_splits,
    train_one,
)


def _random_dataset(n: int = 24) -> GraphDataset:
    gen = torch.Generator().manual_seed(0)
    graphs = []
    for i in range(n):
        size = 3 + i % 4
        ei = torch.tensor([(j, j + 1) for j in range(size - 1)]).t()
        graphs.append(Data(x=torch.randn(size, 3, generator=gen),
                           edge_index=torch.cat([ei, ei.flip(0)], 1), y=torch.tensor([i % 2])))
    return GraphDataset("RANDOM", graphs, 3, 2, "random (3)", {"num_graphs": n})


def _run(options: RunOptions | None, model: str = "gfb-gcn") -> dict:
    ds = _random_dataset()
    split = make_splits(ds.y.numpy(), 4, 0)[0]
    rec = train_one(model, ds.graphs, split, ds.num_features, ds.num_classes, 8, 2,
                    TrainConfig(epochs=3, patience=100, batch_size=4), seed=3, options=options)
    rec.pop("seconds")
    return rec


def test_default_options_are_the_protocol_bit_for_bit() -> None:
    assert _run(None) == _run(RunOptions())


def test_each_option_changes_the_run() -> None:
    base = _run(None)
    for opts in (RunOptions(conv={"second_norm": "l2"}), RunOptions(lambda_lr=0.5),
                 RunOptions(clip_norm=1e-3), RunOptions(readout="sum"),
                 RunOptions(lr_decay_factor=0.1, lr_decay_step=1)):
        assert _run(opts)["test_loss"] != base["test_loss"], opts


def test_lambda_group_has_its_own_lr_and_decay() -> None:
    net = build_classifier("gfb-gcn", 2, 4, 2, 2)
    opt = make_optimizer(net, TrainConfig(lr=0.01, weight_decay=0.1),
                         RunOptions(lambda_lr=0.5, lambda_weight_decay=0.0))
    rest, lam = opt.param_groups
    assert [p.shape for p in lam["params"]] == [torch.Size([]), torch.Size([])]
    assert lam["lr"] == 0.5 and lam["weight_decay"] == 0.0
    assert rest["lr"] == 0.01 and rest["weight_decay"] == 0.1
    assert len(rest["params"]) + 2 == len(list(net.parameters()))


def test_conv_options_reach_every_gfb_layer_and_sum_readout_sums() -> None:
    net = build_classifier("gfb-gcn", 2, 4, 3, 2, conv_options={"summarize": "max",
                                                              "lambda_init": 0.0},
                           readout="sum")
    assert all(c.summarize == "max" and float(c.lam) == 0.0 for c in net.convs)
    x = torch.randn(5, 2)
    ei = torch.tensor([[0, 1, 3, 4], [1, 0, 4, 3]])
    batch = torch.tensor([0, 0, 0, 1, 1])
    net.eval()
    h = x
    adj = net.adjacency(ei, 5, x.dtype)
    for conv in net.convs:
        h = torch.relu(conv(h, adj))
    g = global_add_pool(h, batch)
    want = net.lin2(torch.relu(net.lin1(g)))
    torch.testing.assert_close(net(x, ei, batch), want)

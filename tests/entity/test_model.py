"""Entity models by name: the config's tag and the two-layer R-GCN / GFB-R-GCN it builds."""

from __future__ import annotations

import pytest
from torch_geometric.nn import FastRGCNConv

from gfbgcn.entity.model import MODELS, EntityConfig, build_entity_net
from gfbgcn.nn import EntityNet, GFBRGCNConv


def test_tags_name_every_tunable_setting() -> None:
    assert EntityConfig().tag == "h16-full-wd0-lr0.01-e50"
    assert EntityConfig(num_bases=30, weight_decay=5e-4).tag == "h16-b30-wd0.0005-lr0.01-e50"
    gfb = EntityConfig(model="gfb-rgcn", lambda_init=0.0)
    assert gfb.tag == "h16-full-wd0-lr0.01-e50-mean-lam0"
    assert EntityConfig(model="gfb-rgcn", summarize="topk", k_top=2, eps=0.1, exact=False).tag \
        == "h16-full-wd0-lr0.01-e50-topk-lam1-eps0.1-fast-k2"
    assert EntityConfig(summarize="topk", exact=False).tag == EntityConfig().tag  # R-GCN: no GFB
    assert EntityConfig(hidden=10).to_dict()["hidden"] == 10


@pytest.mark.parametrize("model", MODELS)
def test_build_entity_net(model: str) -> None:
    cfg = EntityConfig(model=model, hidden=5, num_bases=2, lambda_init=0.25, summarize="max")
    net = build_entity_net(30, 4, 3, cfg)
    assert isinstance(net, EntityNet)
    conv_cls = GFBRGCNConv if model == "gfb-rgcn" else FastRGCNConv
    for conv, (fan_in, fan_out) in zip((net.conv1, net.conv2), ((30, 5), (5, 3)), strict=True):
        assert type(conv) is conv_cls
        assert (conv.in_channels_l, conv.out_channels, conv.num_relations, conv.num_bases) == (
            fan_in, fan_out, 4, 2)
        assert conv.aggr == "mean"  # c_ir = |N_i^r|
    if model == "gfb-rgcn":
        assert net.lambdas() == [0.25, 0.25] and net.conv1.summarize == "max"
    else:
        assert net.lambdas() == []


def test_unknown_model() -> None:
    with pytest.raises(ValueError, match="unknown model"):
        build_entity_net(5, 2, 2, EntityConfig(model="gat"))

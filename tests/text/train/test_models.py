"""The text models by name: every name builds, takes ``model(adj)``, and layer 2 is local to the
rows of ``Â`` it is given (what training relies on)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

from gfbgcn.nn import (
    BPConv,
    CachedTransposeGCNConv,
    CBPConv,
    FBPConv,
    GFBConv,
    SqrtGCNConv,
)
from gfbgcn.nn.models import TextGIN, TextSGC, TwoLayerTextGCN
from gfbgcn.nn.sparse import csr_rows
from gfbgcn.text.graph.adjacency import normalized_adjacency
from gfbgcn.text.train.models import (
    MODELS,
    SECOND_LAYERS,
    WHOLE_MODELS,
    WholeModel,
    build_text_model,
    make_second_layer,
)

LAYER_CLASS = {"gcn": CachedTransposeGCNConv, "fbp": FBPConv, "cbp": CBPConv, "bp": BPConv,
               "sqrt": SqrtGCNConv}


def _adjacency(n: int = 30, e: int = 120):
    rng = np.random.default_rng(0)
    edge_index = torch.as_tensor(rng.integers(0, n, (2, e)))
    edge_index = torch.cat([edge_index, edge_index.flip(0)], 1)
    weight = torch.rand(e, dtype=torch.float32, generator=torch.Generator().manual_seed(0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return normalized_adjacency(edge_index, weight.repeat(2), n)


def test_registry() -> None:
    assert MODELS == SECOND_LAYERS + WHOLE_MODELS
    assert WHOLE_MODELS == ("sgc", "gin")
    assert {m for m in SECOND_LAYERS if m.startswith("gfb-")} == {
        "gfb-max", "gfb-mean", "gfb-diag", "gfb-topk", "gfb-upper"}


@pytest.mark.parametrize("name", SECOND_LAYERS)
def test_second_layers_are_prenormalised_and_bias_free(name: str) -> None:
    layer = make_second_layer(name, 6, 4)
    assert isinstance(layer, GFBConv if name.startswith("gfb-") else LAYER_CLASS[name])
    assert layer.normalize is False and layer.bias is None
    if name.startswith("gfb-"):
        assert layer.summarize == name[4:]
    model = build_text_model(name, 30, 4, hidden=6, dropout=0.3)
    assert isinstance(model, TwoLayerTextGCN) and model.dropout == 0.3
    assert model.w1.shape == (30, 6)
    assert model.eval()(_adjacency()).shape == (30, 4)


def test_layer_options_reach_the_layer() -> None:
    layer = make_second_layer("gfb-max", 6, 4, exact=False, lambda_init=0.0, eps=0.2)
    assert (layer.exact, layer.lam.item(), layer.eps) == (False, 0.0, 0.2)
    assert make_second_layer("fbp", 6, 4, rank=3).rank == 3
    with pytest.raises(ValueError, match="unknown model"):
        make_second_layer("gat", 6, 4)
    with pytest.raises(ValueError, match="unknown model"):
        build_text_model("gat", 30, 4)


@pytest.mark.parametrize("name", WHOLE_MODELS)
def test_whole_models_take_the_adjacency_alone(name: str) -> None:
    model = build_text_model(name, 30, 4, hidden=6, eps=-1.0) if name == "gin" else \
        build_text_model(name, 30, 4)
    assert isinstance(model, WholeModel)
    inner = model.module
    assert isinstance(inner, TextGIN if name == "gin" else TextSGC)
    assert inner.normalize is False if name == "sgc" else all(
        not conv.normalize for conv in inner.convs)
    adj = _adjacency()
    torch.testing.assert_close(model.eval()(adj), inner(None, adj))
    before = [p.clone() for p in model.parameters()]
    model.reset_parameters()
    assert any(not torch.equal(a, b) for a, b in zip(before, model.parameters()))


@pytest.mark.parametrize("second", SECOND_LAYERS)
def test_second_layer_on_selected_rows_equals_full_output_rows(second):
    """Training evaluates layer 2 on the training/validation rows of Â only."""
    adj = _adjacency()
    torch.manual_seed(0)
    model = build_text_model(second, 30, 4, hidden=6).eval()
    rows = torch.tensor([5, 0, 17, 29, 3])
    h = model.hidden(adj)
    torch.testing.assert_close(model.head(h, csr_rows(adj, rows)), model.head(h, adj)[rows])

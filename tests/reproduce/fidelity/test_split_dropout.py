"""The GFB layer with separate inputs for its two terms, and Text GCN with the second-order term
on undropped features, against literal float64 evaluations of their equations."""

from __future__ import annotations

import pytest
import torch

from gfbgcn.nn import GFBConv
from gfbgcn.nn.models import TwoLayerTextGCN
from gfbgcn.nn.second_norm import SECOND_NORMS
from gfbgcn.nn.utils import keep_mask
from gfbgcn.reproduce.fidelity.split_dropout import UndroppedSecondOrder, split_forward
from tests.nn.conv import helpers
from tests.nn.conv.helpers import OUT, D
from tests.nn.test_second_norm import literal_norm


@pytest.mark.parametrize("mode", SECOND_NORMS)
def test_split_forward_matches_its_equation(mode: str) -> None:
    layer = helpers.make(lambda **kw: GFBConv(D, OUT, summarize="max", eps=0.05,
                                              second_norm=mode, **kw))
    edge_index, weight = helpers.graph()
    a = helpers.dense_adjacency(edge_index, weight)
    x1, x2 = helpers.features(seed=1), helpers.features(seed=7)
    torch.testing.assert_close(split_forward(layer, x1, x1, edge_index, weight),
                               layer(x1, edge_index, weight), rtol=1e-12, atol=1e-12)
    w = layer.lin.weight
    second = helpers.literal_genvec(x2 @ w.t(), "max", 0.05, 3, True)
    if mode != "none":
        second = literal_norm(second, mode, 1.0)
    want = a @ (x1 @ w.t() + layer.lam * second) + layer.bias
    torch.testing.assert_close(split_forward(layer, x1, x2, edge_index, weight), want,
                               rtol=1e-10, atol=1e-10)


def test_text_gcn_with_the_second_order_term_undropped() -> None:
    edge_index, weight = helpers.graph()
    adj = helpers.dense_adjacency(edge_index, weight).to_sparse_csr()
    torch.manual_seed(0)
    conv2 = GFBConv(5, OUT, summarize="diag", normalize=False, bias=False)
    on = TwoLayerTextGCN(helpers.N, conv2, hidden=5, dropout=0.5).double()
    off = UndroppedSecondOrder(on)
    assert [p for p in off.parameters()] == [p for p in on.parameters()]  # nothing redrawn
    off.eval()
    torch.testing.assert_close(on(adj), off(adj))  # no dropout at evaluation: identical
    off.train()
    assert on.training
    torch.manual_seed(3)
    got = off(adj)
    h = off.hidden(adj)
    torch.manual_seed(3)
    dropped = h * keep_mask(h, 0.5) * 2.0  # the CPU mask of gfbgcn.nn.utils.dropout
    w, lam = on.conv2.lin.weight, on.conv2.lam
    dense = adj.to_dense()
    want = dense @ (dropped @ w.t() + lam * ((h @ w.t()) ** 2 + on.conv2.eps))
    torch.testing.assert_close(got, want, rtol=1e-10, atol=1e-10)


def test_only_the_identity_feature_text_gcn_with_a_gfb_layer_is_wrapped() -> None:
    from torch_geometric.nn import GCNConv

    with pytest.raises(ValueError, match="GFB second layer"):
        UndroppedSecondOrder(TwoLayerTextGCN(4, GCNConv(5, 3), hidden=5))
    with pytest.raises(ValueError, match="GFB second layer"):
        UndroppedSecondOrder(torch.nn.Linear(2, 2))

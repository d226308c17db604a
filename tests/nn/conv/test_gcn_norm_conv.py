"""GCNNormConv (Omega of Eq. ``gcn_omega``: normalisation, caching, the fused sparse path) and
SecondOrderConv (the shared forward ``post(Omega{phi(x)}) + b``)."""

from __future__ import annotations

import pytest
import torch
from torch import Tensor
from torch.nn import Parameter
from torch_geometric.nn.conv.gcn_conv import gcn_norm
from torch_geometric.utils import to_torch_csr_tensor

from gfbgcn.nn import GCNNormConv, GFBConv, SecondOrderConv
from gfbgcn.nn.sparse import fused_sparse_ok

from . import helpers
from .helpers import OUT, D, N


class ScaledLinear(SecondOrderConv):
    """A minimal subclass: phi(x) = W x, post(z) = 2 z + 1 (both hooks exercised)."""

    def __init__(self, in_channels: int, out_channels: int, **kwargs) -> None:
        super().__init__(in_channels, out_channels, **kwargs)
        self.weight = Parameter(torch.empty(out_channels, in_channels))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        super().reset_parameters()
        torch.nn.init.normal_(self.weight)
        if self.bias is not None:
            torch.nn.init.zeros_(self.bias)

    def node_features(self, x: Tensor) -> Tensor:
        return x @ self.weight.t()

    def post_aggregate(self, out: Tensor) -> Tensor:
        return 2.0 * out + 1.0


def factory(**kwargs) -> ScaledLinear:
    return ScaledLinear(D, OUT, **kwargs)


def reference(layer: ScaledLinear, x: Tensor, a: Tensor) -> Tensor:
    return 2.0 * (a @ (x @ layer.weight.t())) + 1.0 + layer.bias


def test_repr() -> None:
    assert repr(ScaledLinear(5, 2)) == "ScaledLinear(5, 2)"


def test_bias_flag_and_bipartite_input() -> None:
    assert ScaledLinear(3, 2, bias=False).bias is None
    assert dict(ScaledLinear(3, 2).named_parameters())["bias"].shape == (2,)
    with pytest.raises(ValueError, match="bipartite"):
        ScaledLinear(3, 2)((torch.randn(4, 3), torch.randn(4, 3)), torch.tensor([[0], [1]]))


def test_node_features_is_abstract() -> None:
    with pytest.raises(NotImplementedError):
        SecondOrderConv(3, 2)(torch.randn(4, 3), torch.tensor([[0], [1]]))


def test_self_loop_default_follows_normalize() -> None:
    assert GCNNormConv().add_self_loops and GCNNormConv().normalize
    assert not GCNNormConv(normalize=False).add_self_loops
    assert not GCNNormConv(add_self_loops=False).add_self_loops
    helpers.check_self_loops_require_normalisation(factory)


@pytest.mark.parametrize("fmt", ["edge_index", "torch.sparse_coo", "torch.sparse_csr"])
def test_normalized_adjacency_keeps_existing_self_loop_weights(fmt: str) -> None:
    """Every input form is normalised as ``gcn_norm``'s edge_index branch does: the existing
    self-loop (node 0, weight 2.5) keeps its weight, missing ones get 1 (helpers'
    ``dense_adjacency`` is that definition, written out)."""
    conv = GCNNormConv()
    edge_index, weight = helpers.graph()
    expected = helpers.dense_adjacency(edge_index, weight)
    if fmt == "edge_index":
        ei, ew = conv.normalized_adjacency(edge_index, weight, N, torch.float64)
        got = helpers.dense_adjacency(ei, ew, normalize=False)
        ref_ei, ref_ew = gcn_norm(edge_index, weight, N, add_self_loops=True)
        torch.testing.assert_close(got, helpers.dense_adjacency(ref_ei, ref_ew, normalize=False))
    else:
        adj_t, none = conv.normalized_adjacency(
            helpers.sparse_inputs(edge_index, weight)[fmt], None, N, torch.float64)
        assert none is None and adj_t.layout == torch.sparse_csr  # as spmm's fast path wants
        got = adj_t.to_dense()
    torch.testing.assert_close(got, expected, **helpers.TOL)


def test_reset_cache_forgets_the_adjacency() -> None:
    conv = GCNNormConv(cached=True)
    edge_index, weight = helpers.graph()
    first, _ = conv.normalized_adjacency(edge_index, weight, N, torch.float64)
    again, _ = conv.normalized_adjacency(edge_index[:, :2], weight[:2], N, torch.float64)
    assert again is first
    conv.reset_cache()
    fresh, _ = conv.normalized_adjacency(edge_index[:, :2], weight[:2], N, torch.float64)
    assert fresh is not first and fresh.size(1) < first.size(1)


def test_sparse_fast_path_equals_propagate_and_keeps_hooks() -> None:
    torch.manual_seed(0)
    edge_index = torch.randint(0, 12, (2, 40))
    weight = torch.rand(40)
    adj_t = to_torch_csr_tensor(edge_index.flip(0), weight, size=(12, 12))
    conv = GFBConv(5, 3, normalize=False)
    x = torch.randn(12, 5)
    assert fused_sparse_ok(conv, adj_t)
    fast = conv(x, adj_t)
    torch.testing.assert_close(fast, conv(x, edge_index, weight))
    calls = []
    conv.register_propagate_forward_hook(lambda module, inputs, out: calls.append(1))
    assert not fused_sparse_ok(conv, adj_t)  # a hook sends the sparse input through propagate
    torch.testing.assert_close(conv(x, adj_t), fast)
    assert calls == [1]

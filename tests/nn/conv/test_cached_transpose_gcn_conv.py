"""CachedTransposeGCNConv: PyG's ``GCNConv`` with the cached-transpose sparse backward of
:mod:`gfbgcn.nn.sparse`.

It must be PyG's layer in every respect but speed: same parameters, same outputs and same
gradients (float64) on ``edge_index`` and on a torch sparse CSR adjacency, normalised by the
layer or pre-normalised (the Text GCN second layer: ``normalize=False`` on a symmetric ``Â``).
"""

from __future__ import annotations

import pytest
import torch
from torch import Tensor
from torch_geometric.nn import GCNConv
from torch_geometric.utils import to_torch_csr_tensor

import gfbgcn.nn.conv.cached_transpose_gcn_conv as cached_transpose_gcn_conv_module
from gfbgcn.nn import CachedTransposeGCNConv
from gfbgcn.nn.sparse import csr_transpose, mark_symmetric

from . import helpers

N, D, OUT = 6, 4, 3
# an undirected weighted graph without self-loops, both directions stored
PAIRS = [(0, 1), (1, 2), (2, 3), (3, 0), (2, 4), (4, 5)]


def symmetric_graph() -> tuple[Tensor, Tensor]:
    src = [a for a, b in PAIRS] + [b for a, b in PAIRS]
    dst = [b for a, b in PAIRS] + [a for a, b in PAIRS]
    half = 0.5 + torch.rand(len(PAIRS), generator=torch.Generator().manual_seed(3),
                            dtype=torch.float64)
    return torch.tensor([src, dst]), torch.cat([half, half])


def pair(**kwargs) -> tuple[CachedTransposeGCNConv, GCNConv]:
    """Our layer and PyG's with the same (random, float64) weights and a non-zero bias."""
    ours = helpers.randomize_(CachedTransposeGCNConv(D, OUT, **kwargs), seed=5)
    pyg = GCNConv(D, OUT, **kwargs).double()
    pyg.load_state_dict(ours.state_dict())
    return ours, pyg


def outputs_and_grads(layer: torch.nn.Module, x: Tensor, *graph_args) -> list[Tensor]:
    x = x.clone().requires_grad_()
    out = layer(x, *graph_args)
    grads = torch.autograd.grad(out.square().sum(), [x, *layer.parameters()])
    return [out.detach(), *grads]


def assert_all_close(got: list[Tensor], expected: list[Tensor]) -> None:
    names = ["output", "grad x", "grad weight", "grad bias"]
    for name, a, b in zip(names, got, expected, strict=True):
        torch.testing.assert_close(a, b, rtol=1e-12, atol=1e-12, msg=lambda m, n=name: f"{n}: {m}")


def test_repr_and_parameters_are_gcnconv() -> None:
    ours, pyg = pair()
    assert repr(ours) == "CachedTransposeGCNConv(4, 3)"
    assert isinstance(ours, GCNConv)
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in pyg.named_parameters()]


def test_equals_gcnconv_on_edge_index() -> None:
    edge_index, weight = symmetric_graph()
    x = helpers.features(n=N, d=D)
    ours, pyg = pair()
    got = outputs_and_grads(ours, x, edge_index, weight)
    assert_all_close(got, outputs_and_grads(pyg, x, edge_index, weight))
    # and both are the literal D^-1/2 (A + I) D^-1/2 X W^T + b
    a = helpers.dense_adjacency(edge_index, weight, n=N)
    torch.testing.assert_close(got[0], a @ x @ ours.lin.weight.t() + ours.bias,
                               rtol=1e-12, atol=1e-12)


def test_equals_gcnconv_on_sparse_csr() -> None:
    edge_index, weight = symmetric_graph()
    adj_t = to_torch_csr_tensor(edge_index.flip(0), weight, size=(N, N))
    x = helpers.features(n=N, d=D)
    ours, pyg = pair()
    got = outputs_and_grads(ours, x, adj_t)
    assert_all_close(got, outputs_and_grads(pyg, x, adj_t))
    assert_all_close(got, outputs_and_grads(pyg, x, edge_index, weight))


@pytest.mark.parametrize("symmetric", [False, True])
def test_equals_gcnconv_on_prenormalised_csr(symmetric: bool) -> None:
    """The Text GCN setting: ``normalize=False``, ``Â`` given as CSR (marked symmetric or not)."""
    edge_index, weight = symmetric_graph()
    a_hat = helpers.dense_adjacency(edge_index, weight, n=N)
    adj = a_hat.to_sparse_csr()
    if symmetric:
        mark_symmetric(adj)
        assert csr_transpose(adj) is adj  # the backward reuses the matrix itself
    x = helpers.features(n=N, d=D)
    ours, pyg = pair(normalize=False)
    got = outputs_and_grads(ours, x, adj)
    assert_all_close(got, outputs_and_grads(pyg, x, a_hat.to_sparse_csr()))
    ei = a_hat.nonzero().t().flip(0)  # edge (source -> target) for Â[target, source]
    assert_all_close(got, outputs_and_grads(pyg, x, ei, a_hat[ei[1], ei[0]]))
    torch.testing.assert_close(got[0], a_hat @ x @ ours.lin.weight.t() + ours.bias,
                               rtol=1e-12, atol=1e-12)


def test_sparse_product_goes_through_gfbgcn_spmm(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    inner = cached_transpose_gcn_conv_module.spmm

    def spy(adj, x, reduce="sum"):
        calls.append(str(adj.layout))
        return inner(adj, x, reduce=reduce)

    monkeypatch.setattr(cached_transpose_gcn_conv_module, "spmm", spy)
    edge_index, weight = symmetric_graph()
    ours, _ = pair(normalize=False)
    ours(helpers.features(n=N, d=D), to_torch_csr_tensor(edge_index.flip(0), weight, size=(N, N)))
    assert calls == ["torch.sparse_csr"]

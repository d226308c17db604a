"""Checks shared by the GCN-normalised layers, called from each layer's own test file.

As in PyTorch Geometric's ``test/nn/conv/``, every layer file checks its ``repr``, its output
shapes, that ``edge_index`` and sparse adjacency inputs (``torch.sparse`` COO and CSR, and
``torch_sparse.SparseTensor`` where it is installed) give the same outputs and gradients, a
float64 gradcheck, and its equation against an independent dense float64 evaluation in the
literal order of the paper (per-node feature, dense ``\\hat A`` product, read-out).  The functions
here implement the checks common to every layer built on
:class:`~gfbgcn.nn.conv.gcn_norm_conv.GCNNormConv`: a layer file passes its factory
(``factory(**kwargs) -> layer``) and its dense reference (``reference(layer, x, a) -> out``).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
import torch
from torch import Tensor
from torch.func import functional_call
from torch_geometric import typing as pyg_typing

import gfbgcn.nn.conv.gcn_norm_conv as gcn_norm_conv_module

Factory = Callable[..., torch.nn.Module]
Reference = Callable[[torch.nn.Module, Tensor, Tensor], Tensor]

N, D, OUT = 6, 4, 3

# A directed, weighted graph with one existing self-loop (node 0, weight 2.5): exercises the
# direction convention and "remaining" self-loop handling of every input format.
SRC = [0, 1, 1, 2, 3, 4, 5, 2, 0]
DST = [1, 0, 2, 3, 2, 5, 4, 4, 0]

TOL = {"rtol": 1e-10, "atol": 1e-10}


def graph(seed: int = 0) -> tuple[Tensor, Tensor]:
    """``(edge_index [2, 9], edge_weight [9] float64)`` of the test graph."""
    gen = torch.Generator().manual_seed(seed)
    edge_index = torch.tensor([SRC, DST])
    weight = 0.5 + torch.rand(len(SRC), generator=gen, dtype=torch.float64)
    weight[-1] = 2.5
    return edge_index, weight


def dense_adjacency(edge_index: Tensor, weight: Tensor, normalize: bool = True,
                    n: int = N) -> Tensor:
    """``A[target, source] = w``; if normalize: missing self-loops get 1, then D^-1/2 A D^-1/2."""
    a = torch.zeros(n, n, dtype=torch.float64)
    a.index_put_((edge_index[1], edge_index[0]), weight.to(torch.float64), accumulate=True)
    if not normalize:
        return a
    diag = torch.diagonal(a)
    diag[diag == 0] = 1.0
    deg = a.sum(dim=1)
    dis = deg.pow(-0.5)
    return dis[:, None] * a * dis[None, :]


def features(seed: int = 1, n: int = N, d: int = D) -> Tensor:
    return torch.randn(n, d, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


def randomize_(layer: torch.nn.Module, seed: int = 2) -> torch.nn.Module:
    """float64 and random values for every parameter (biases are zero-initialised)."""
    layer.double()
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in layer.parameters():
            p.copy_(torch.rand(p.shape, generator=gen, dtype=p.dtype) - 0.5)
    return layer


def make(factory: Factory, seed: int = 2, **kwargs) -> torch.nn.Module:
    """``factory(**kwargs)`` in float64 with random parameters."""
    return randomize_(factory(**kwargs), seed)


def sparse_inputs(edge_index: Tensor, weight: Tensor, n: int = N) -> dict[str, object]:
    """The transposed adjacency (row = target) in every sparse form a layer accepts."""
    adj_t = torch.sparse_coo_tensor(edge_index.flip(0), weight, (n, n)).coalesce()
    out: dict[str, object] = {"torch.sparse_coo": adj_t, "torch.sparse_csr": adj_t.to_sparse_csr()}
    if pyg_typing.WITH_TORCH_SPARSE:  # as PyG's own layer tests: only where it is installed
        out["SparseTensor"] = pyg_typing.SparseTensor.from_edge_index(
            edge_index, weight, sparse_sizes=(n, n)).t()
    return out


def literal_genvec(h: Tensor, summarize: str, eps: float, k_top: int, exact: bool) -> Tensor:
    """GenVec(M), M = h h^T + eps I formed per node, rows summarised (exact form); the paper's
    fast form (section "Implementation details") otherwise."""
    if summarize == "upper":
        return h * (1 - torch.prod(1 - h, dim=-1, keepdim=True))
    if not exact:
        partner = {"max": h.max(-1, keepdim=True).values, "mean": h.mean(-1, keepdim=True),
                   "diag": h,
                   "topk": torch.topk(h, k_top, dim=-1).values.mean(-1, keepdim=True)}[summarize]
        return h * partner
    m = h[:, :, None] * h[:, None, :] + eps * torch.eye(h.size(1), dtype=h.dtype)
    if summarize == "max":
        return m.max(dim=-1).values
    if summarize == "mean":
        return m.mean(dim=-1)
    if summarize == "diag":
        return torch.diagonal(m, dim1=-2, dim2=-1)
    return torch.topk(m, k_top, dim=-1).values.mean(dim=-1)


# ---- the common checks ------------------------------------------------------------------


def check_dense_equation(factory: Factory, reference: Reference) -> None:
    """Output equals ``reference`` with ``\\hat A`` formed densely, weighted and unweighted."""
    layer = make(factory)
    edge_index, weight = graph()
    x = features()
    out = layer(x, edge_index, weight)
    assert out.shape == (N, OUT) and out.dtype == torch.float64
    torch.testing.assert_close(out, reference(layer, x, dense_adjacency(edge_index, weight)),
                               **TOL)
    ones = torch.ones(len(SRC), dtype=torch.float64)  # no weights: all-ones
    torch.testing.assert_close(layer(x, edge_index),
                               reference(layer, x, dense_adjacency(edge_index, ones)), **TOL)


def check_dense_equation_without_normalisation(factory: Factory, reference: Reference) -> None:
    layer = make(factory, normalize=False)
    assert not layer.add_self_loops
    edge_index, weight = graph()
    x = features()
    expected = reference(layer, x, dense_adjacency(edge_index, weight, normalize=False))
    torch.testing.assert_close(layer(x, edge_index, weight), expected, **TOL)


def check_self_loops_require_normalisation(factory: Factory) -> None:
    with pytest.raises(ValueError, match="self-loops"):
        factory(normalize=False, add_self_loops=True)


def check_gradcheck(factory: Factory) -> None:
    """float64 gradcheck with respect to the input and every parameter."""
    layer = make(factory)
    edge_index, weight = graph()
    names = [n for n, _ in layer.named_parameters()]
    params = tuple(p.detach().clone().requires_grad_() for _, p in layer.named_parameters())
    x = features().requires_grad_()

    def fn(x_: Tensor, *ps: Tensor) -> Tensor:
        return functional_call(layer, dict(zip(names, ps)), (x_, edge_index, weight))

    assert torch.autograd.gradcheck(fn, (x, *params))


def check_permutation_equivariance(factory: Factory) -> None:
    layer = make(factory)
    edge_index, weight = graph()
    x = features()
    perm = torch.tensor([3, 0, 5, 1, 4, 2])
    inv = torch.empty_like(perm)
    inv[perm] = torch.arange(N)
    out = layer(x, edge_index, weight)
    out_perm = layer(x[perm], inv[edge_index], weight)
    torch.testing.assert_close(out_perm, out[perm], **TOL)


def _outputs_and_grads(layer: torch.nn.Module, x: Tensor, *graph_args) -> list[Tensor]:
    x = x.clone().requires_grad_()
    out = layer(x, *graph_args)
    grads = torch.autograd.grad(out.square().sum(), [x, *layer.parameters()])
    return [out.detach(), *grads]


def check_sparse_equals_edge_index(factory: Factory, normalize: bool) -> None:
    """Every sparse adjacency form gives the outputs and gradients of ``edge_index``."""
    layer = make(factory, normalize=normalize)
    edge_index, weight = graph()
    x = features()
    expected = _outputs_and_grads(layer, x, edge_index, weight)
    for fmt, adj_t in sparse_inputs(edge_index, weight).items():
        got = _outputs_and_grads(layer, x, adj_t)
        for name, a, b in zip(["output", "grad x", "grad params"], got, expected):
            torch.testing.assert_close(a, b, **TOL, msg=lambda m, n=name, f=fmt: f"{f} {n}: {m}")


class _CountingNorm:
    def __init__(self) -> None:
        self.calls = 0
        self.inner = gcn_norm_conv_module.gcn_norm

    def __call__(self, *args, **kwargs):
        self.calls += 1
        return self.inner(*args, **kwargs)


def check_cached_normalisation(factory: Factory, monkeypatch: pytest.MonkeyPatch) -> None:
    """``cached=True``: ``gcn_norm`` runs once per input form; ``reset_parameters`` clears it."""
    counter = _CountingNorm()
    monkeypatch.setattr(gcn_norm_conv_module, "gcn_norm", counter)
    edge_index, weight = graph()
    x = features()
    layer = make(factory, cached=True)
    first = layer(x, edge_index, weight)
    assert counter.calls == 1
    # later calls reuse the cache, even with a different graph passed in (transductive use)
    second = layer(x, edge_index, weight)
    third = layer(x, edge_index[:, :3], weight[:3])
    assert counter.calls == 1
    torch.testing.assert_close(second, first)
    torch.testing.assert_close(third, first)
    # sparse input has its own slot, also computed once
    adj_t = sparse_inputs(edge_index, weight)["torch.sparse_csr"]
    layer(x, adj_t)
    layer(x, adj_t)
    assert counter.calls == 2
    # reset_parameters clears the cache
    layer.reset_parameters()
    layer(x, edge_index, weight)
    assert counter.calls == 3

    uncached = make(factory)
    uncached(x, edge_index, weight)
    uncached(x, edge_index, weight)
    assert counter.calls == 5


def check_state_dict_round_trip(factory: Factory) -> None:
    layer = make(factory, seed=2)
    other = make(factory, seed=9)
    edge_index, weight = graph()
    x = features()
    assert not torch.allclose(layer(x, edge_index, weight), other(x, edge_index, weight))
    other.load_state_dict(layer.state_dict())
    torch.testing.assert_close(other(x, edge_index, weight), layer(x, edge_index, weight))


def check_float32_shape_and_isolated_nodes(factory: Factory) -> None:
    """Default dtype, and nodes without edges (only their self-loop) stay finite."""
    layer = factory()
    x = torch.randn(10, D)  # nodes 6..9 have no edges: only their self-loop
    edge_index, _ = graph()
    out = layer(x, edge_index)
    assert out.shape == (10, OUT) and out.dtype == torch.float32
    assert torch.isfinite(out).all()

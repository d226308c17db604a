"""Properties shared by every GCN-normalised layer: dense-formula equality, gradcheck,
permutation equivariance, equal results for every adjacency format, and caching.

Every layer is compared with an independent dense float64 evaluation of its paper equation
in the literal order (per-node second-order feature, dense ``\\hat A`` product, read-out).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest
import torch
from torch import Tensor
from torch.func import functional_call
from torch_geometric.nn.models import MLP

import gfbgcn.nn.gfb_conv as gfb_conv_module
from gfbgcn.nn import (
    BPConv,
    CBPConv,
    FBPConv,
    GFBConv,
    SqrtGCNConv,
    WeightedGINConv,
    genvec_reference,
)
from gfbgcn.nn.bilinear import tensor_sketch


@pytest.fixture(autouse=True)
def _single_thread():
    """Tiny tensors: intra-op threads only add latency (pocketfft splits even a 6 x 16 FFT
    over threads, which costs milliseconds per call on a loaded 2-core machine)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)

N, D, OUT = 6, 4, 3

# A directed, weighted graph with one existing self-loop (node 0, weight 2.5): exercises the
# direction convention and "remaining" self-loop handling of every input format.
SRC = [0, 1, 1, 2, 3, 4, 5, 2, 0]
DST = [1, 0, 2, 3, 2, 5, 4, 4, 0]


def graph(seed: int = 0) -> tuple[Tensor, Tensor]:
    gen = torch.Generator().manual_seed(seed)
    edge_index = torch.tensor([SRC, DST])
    weight = 0.5 + torch.rand(len(SRC), generator=gen, dtype=torch.float64)
    weight[-1] = 2.5
    return edge_index, weight


def dense_adjacency(edge_index: Tensor, weight: Tensor, normalize: bool = True) -> Tensor:
    """``A[target, source] = w``; if normalize: missing self-loops get 1, then D^-1/2 A D^-1/2."""
    a = torch.zeros(N, N, dtype=torch.float64)
    a.index_put_((edge_index[1], edge_index[0]), weight, accumulate=True)
    if not normalize:
        return a
    diag = torch.diagonal(a)
    diag[diag == 0] = 1.0
    deg = a.sum(dim=1)
    dis = deg.pow(-0.5)
    return dis[:, None] * a * dis[None, :]


def features(seed: int = 1, n: int = N) -> Tensor:
    return torch.randn(n, D, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


def randomize_(layer: torch.nn.Module, seed: int = 2) -> torch.nn.Module:
    """float64 and random values for every parameter (biases are zero-initialised)."""
    layer.double()
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in layer.parameters():
            p.copy_(torch.rand(p.shape, generator=gen, dtype=p.dtype) - 0.5)
    return layer


# ---- dense references, literal order of each equation ------------------------------------

FAST = {
    "max": lambda h: h * h.max(-1, keepdim=True).values,
    "mean": lambda h: h * h.mean(-1, keepdim=True),
    "diag": lambda h: h * h,
    "topk": lambda h: h * torch.topk(h, 2, dim=-1).values.mean(-1, keepdim=True),
    "upper": lambda h: h * (1 - torch.prod(1 - h, -1, keepdim=True)),
}


def ref_gfb(layer: GFBConv, x: Tensor, a: Tensor) -> Tensor:
    """Eq. cfm: A (W x + lambda GenVec(W x x^T W^T + eps I)) + b."""
    h = x @ layer.lin.weight.t()
    if layer.exact:
        second = genvec_reference(h, layer.summarize, eps=layer.eps, k_top=layer.k_top)
    else:
        second = FAST[layer.summarize](h)
    return a @ (h + layer.lam * second) + layer.bias


def ref_fbp(layer: FBPConv, x: Tensor, a: Tensor) -> Tensor:
    """Eq. fm, aggregate the k^2 features first, then the read-out L."""
    h = x @ layer.proj.weight.t()
    k = h.size(1)
    vec = (h[:, :, None] * h[:, None, :] + layer.eps * torch.eye(k, dtype=h.dtype)).reshape(N, -1)
    return (a @ vec) @ layer.lin.weight.t() + layer.bias


def ref_bp(layer: BPConv, x: Tensor, a: Tensor) -> Tensor:
    """Eq. bipool, W . Omega{vec_upper(x x^T + eps I)} with the d(d+1)/2 features formed."""
    rows, cols = zip(*[(i, j) for i in range(D) for j in range(i, D)])
    m = x[:, :, None] * x[:, None, :] + layer.eps * torch.eye(D, dtype=x.dtype)
    vec = m[:, list(rows), list(cols)]
    return (a @ vec) @ layer.weight.t() + layer.bias


def ref_cbp(layer: CBPConv, x: Tensor, a: Tensor) -> Tensor:
    ts = tensor_sketch(x, layer.hash1, layer.sign1, layer.hash2, layer.sign2, layer.sketch_dim)
    return (a @ ts) @ layer.lin.weight.t() + layer.bias


def ref_sqrt(layer: SqrtGCNConv, x: Tensor, a: Tensor) -> Tensor:
    z = a @ (x @ layer.lin.weight.t())
    delta = layer.delta
    return torch.sign(z) * (torch.sqrt(z.abs() + delta) - math.sqrt(delta)) + layer.bias


def ref_gin(layer: WeightedGINConv, x: Tensor, a: Tensor) -> Tensor:
    return layer.nn((1 + layer.eps) * x + a @ x)


Factory = Callable[..., torch.nn.Module]
LAYERS: dict[str, tuple[Factory, Callable]] = {}
for _name in ("max", "mean", "diag", "topk", "upper"):
    for _exact in (True, False):
        LAYERS[f"gfb-{_name}-{'exact' if _exact else 'fast'}"] = (
            lambda _n=_name, _e=_exact, **kw: GFBConv(
                D, OUT, summarize=_n, exact=_e, eps=0.05, k_top=2, **kw
            ),
            ref_gfb,
        )
LAYERS["fbp"] = (lambda **kw: FBPConv(D, OUT, rank=3, eps=0.05, chunk_size=4, **kw), ref_fbp)
LAYERS["bp"] = (lambda **kw: BPConv(D, OUT, eps=0.05, chunk_size=4, **kw), ref_bp)
LAYERS["cbp"] = (lambda **kw: CBPConv(D, OUT, sketch_dim=16, chunk_size=4, **kw), ref_cbp)
LAYERS["sqrt"] = (lambda **kw: SqrtGCNConv(D, OUT, delta=0.05, **kw), ref_sqrt)
LAYERS["gin"] = (
    lambda **kw: WeightedGINConv(MLP([D, 5, OUT], norm=None), train_eps=True, **kw),
    ref_gin,
)
NAMES = sorted(LAYERS)


def make(name: str, seed: int = 2, **kw) -> torch.nn.Module:
    return randomize_(LAYERS[name][0](**kw), seed)


@pytest.mark.parametrize("name", NAMES)
def test_matches_dense_equation(name: str) -> None:
    layer = make(name)
    edge_index, weight = graph()
    x = features()
    out = layer(x, edge_index, weight)
    assert out.shape == (N, OUT) and out.dtype == torch.float64
    expected = LAYERS[name][1](layer, x, dense_adjacency(edge_index, weight))
    torch.testing.assert_close(out, expected, rtol=1e-10, atol=1e-10)
    # unweighted graph: all-ones weights
    out1 = layer(x, edge_index)
    ones = torch.ones(len(SRC), dtype=torch.float64)
    expected1 = LAYERS[name][1](layer, x, dense_adjacency(edge_index, ones))
    torch.testing.assert_close(out1, expected1, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("name", NAMES)
def test_matches_dense_equation_without_normalisation(name: str) -> None:
    layer = make(name, normalize=False)
    assert not layer.add_self_loops
    edge_index, weight = graph()
    x = features()
    expected = LAYERS[name][1](layer, x, dense_adjacency(edge_index, weight, normalize=False))
    torch.testing.assert_close(layer(x, edge_index, weight), expected, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("name", NAMES)
def test_self_loops_require_normalisation(name: str) -> None:
    with pytest.raises(ValueError, match="self-loops"):
        LAYERS[name][0](normalize=False, add_self_loops=True)


@pytest.mark.parametrize("name", NAMES)
def test_gradcheck_inputs_and_parameters(name: str) -> None:
    layer = make(name)
    edge_index, weight = graph()
    names = [n for n, _ in layer.named_parameters()]
    params = tuple(p.detach().clone().requires_grad_() for _, p in layer.named_parameters())
    x = features().requires_grad_()

    def fn(x_: Tensor, *ps: Tensor) -> Tensor:
        return functional_call(layer, dict(zip(names, ps)), (x_, edge_index, weight))

    assert torch.autograd.gradcheck(fn, (x, *params))


@pytest.mark.parametrize("name", NAMES)
def test_permutation_equivariance(name: str) -> None:
    layer = make(name)
    edge_index, weight = graph()
    x = features()
    perm = torch.tensor([3, 0, 5, 1, 4, 2])
    inv = torch.empty_like(perm)
    inv[perm] = torch.arange(N)
    out = layer(x, edge_index, weight)
    out_perm = layer(x[perm], inv[edge_index], weight)
    torch.testing.assert_close(out_perm, out[perm], rtol=1e-10, atol=1e-10)


def _sparse_inputs(edge_index: Tensor, weight: Tensor) -> dict[str, Tensor]:
    adj_t = torch.sparse_coo_tensor(edge_index.flip(0), weight, (N, N)).coalesce()
    return {"coo": adj_t, "csr": adj_t.to_sparse_csr()}


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("normalize", [True, False])
def test_torch_sparse_adjacency_equals_edge_index(name: str, normalize: bool) -> None:
    layer = make(name, normalize=normalize)
    edge_index, weight = graph()
    x = features()
    expected = layer(x, edge_index, weight)
    for fmt, adj_t in _sparse_inputs(edge_index, weight).items():
        torch.testing.assert_close(layer(x, adj_t), expected, rtol=1e-10, atol=1e-10, msg=fmt)


class _CountingNorm:
    def __init__(self) -> None:
        self.calls = 0
        self.inner = gfb_conv_module.gcn_norm

    def __call__(self, *args, **kwargs):
        self.calls += 1
        return self.inner(*args, **kwargs)


@pytest.mark.parametrize("name", NAMES)
def test_cached_normalisation_is_computed_once(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    counter = _CountingNorm()
    monkeypatch.setattr(gfb_conv_module, "gcn_norm", counter)
    edge_index, weight = graph()
    x = features()
    layer = make(name, cached=True)
    first = layer(x, edge_index, weight)
    assert counter.calls == 1
    # later calls reuse the cache, even with a different graph passed in (transductive use)
    second = layer(x, edge_index, weight)
    third = layer(x, edge_index[:, :3], weight[:3])
    assert counter.calls == 1
    torch.testing.assert_close(second, first)
    torch.testing.assert_close(third, first)
    # sparse input has its own slot, also computed once
    adj_t = _sparse_inputs(edge_index, weight)["csr"]
    layer(x, adj_t)
    layer(x, adj_t)
    assert counter.calls == 2
    # reset_parameters clears the cache
    layer.reset_parameters()
    layer(x, edge_index, weight)
    assert counter.calls == 3

    uncached = make(name)
    uncached(x, edge_index, weight)
    uncached(x, edge_index, weight)
    assert counter.calls == 5


@pytest.mark.parametrize("name", NAMES)
def test_state_dict_round_trip(name: str) -> None:
    layer = make(name, seed=2)
    other = make(name, seed=9)
    edge_index, weight = graph()
    x = features()
    assert not torch.allclose(layer(x, edge_index, weight), other(x, edge_index, weight))
    other.load_state_dict(layer.state_dict())
    torch.testing.assert_close(other(x, edge_index, weight), layer(x, edge_index, weight))


@pytest.mark.parametrize("name", NAMES)
def test_output_shape_float32_and_isolated_nodes(name: str) -> None:
    layer = LAYERS[name][0]()
    x = torch.randn(10, D)  # nodes 6..9 have no edges: only their self-loop
    edge_index, _ = graph()
    out = layer(x, edge_index)
    assert out.shape == (10, OUT) and out.dtype == torch.float32
    assert torch.isfinite(out).all()

"""GFBRGCNConv: repr, a naive float64 reference of the GFB-R-GCN equation, equal edge_index and
torch.sparse inputs, gradients, and PyG's R-GCN at lambda = 0."""

from __future__ import annotations

import pytest
import torch
from torch_geometric.nn import FastRGCNConv, RGCNConv

from gfbgcn.nn import GFBRGCNConv
from gfbgcn.nn.genvec import SUMMARIZERS

from . import helpers

N, R, F_IN, K = 7, 3, 5, 4


def _graph(seed: int = 0, n: int = N, e: int = 24) -> tuple[torch.Tensor, torch.Tensor]:
    gen = torch.Generator().manual_seed(seed)
    edge_index = torch.randint(0, n, (2, e), generator=gen)
    edge_type = torch.randint(0, R, (e,), generator=gen)
    return edge_index, edge_type


def _randomize(conv: torch.nn.Module, seed: int) -> None:
    """Non-trivial values everywhere (bias and lambda included)."""
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in conv.parameters():
            p.copy_(torch.randn(p.shape, generator=gen, dtype=p.dtype) * 0.7)


def _reference(
    conv: GFBRGCNConv, x: torch.Tensor | None, edge_index: torch.Tensor, edge_type: torch.Tensor
) -> torch.Tensor:
    """Loops over nodes and relations, with M = z z^T + eps I formed explicitly:
    h_i = sum_r (1/|N_i^r|) sum_{j in N_i^r} [W_r h_j + lam GenVec(M)] + W_0 h_i + b."""
    n = conv.in_channels_l if x is None else x.size(0)
    weights = conv.weight
    if conv.num_bases is not None:
        weights = torch.einsum("rb,bio->rio", conv.comp, conv.weight)
    feats = torch.eye(n, dtype=weights.dtype) if x is None else x
    out = feats @ conv.root + conv.bias
    rows = []
    for i in range(n):
        acc = out[i].clone()
        for r in range(conv.num_relations):
            nbrs = [int(j) for j, t, d in zip(edge_index[0], edge_type, edge_index[1])
                    if int(t) == r and int(d) == i]
            if not nbrs:
                continue
            for j in nbrs:
                z = (feats[j] @ weights[r]).unsqueeze(0)
                g = helpers.literal_genvec(z, conv.summarize, conv.eps, conv.k_top,
                                           conv.exact)[0]
                acc = acc + (z[0] + conv.lam * g) / len(nbrs)
        rows.append(acc)
    return torch.stack(rows)


def test_repr() -> None:
    assert repr(GFBRGCNConv(F_IN, K, R)) == "GFBRGCNConv(5, 4, num_relations=3, summarize=mean)"
    assert repr(GFBRGCNConv(F_IN, K, R, summarize="MaxVec")) == \
        "GFBRGCNConv(5, 4, num_relations=3, summarize=max)"


@pytest.mark.parametrize("exact", [True, False])
@pytest.mark.parametrize("summarize", SUMMARIZERS)
@pytest.mark.parametrize("featureless", [True, False])
def test_matches_naive_reference(summarize: str, featureless: bool, exact: bool) -> None:
    edge_index, edge_type = _graph(1)
    conv = GFBRGCNConv(N if featureless else F_IN, K, R, num_bases=2, summarize=summarize,
                       eps=0.1 if summarize != "upper" else 0.0, k_top=2, exact=exact).double()
    _randomize(conv, 2)
    x = None if featureless else torch.randn(N, F_IN, dtype=torch.float64)
    got = conv(x, edge_index, edge_type)
    want = _reference(conv, x, edge_index, edge_type)
    assert got.shape == (N, K)
    torch.testing.assert_close(got, want, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("num_bases", [None, 2])
@pytest.mark.parametrize("featureless", [True, False])
def test_gradcheck_float64(num_bases: int | None, featureless: bool) -> None:
    edge_index, edge_type = _graph(3, e=16)
    conv = GFBRGCNConv(N if featureless else F_IN, K, R, num_bases=num_bases,
                       summarize="mean").double()
    _randomize(conv, 4)
    names = [name for name, _ in conv.named_parameters()]  # weight, comp, root, bias, lam
    x = None if featureless else torch.randn(N, F_IN, dtype=torch.float64, requires_grad=True)

    def fn(*tensors: torch.Tensor) -> torch.Tensor:
        state = dict(zip(names, tensors[: len(names)]))
        inp = None if featureless else tensors[-1]
        return torch.func.functional_call(conv, state, (inp, edge_index, edge_type))

    inputs = tuple(p.detach().clone().requires_grad_(True) for p in conv.parameters())
    if not featureless:
        inputs = (*inputs, x)
    assert torch.autograd.gradcheck(fn, inputs, eps=1e-6, atol=1e-6)


@pytest.mark.parametrize("summarize", ["max", "topk", "diag", "upper"])
def test_gradcheck_other_summarizers(summarize: str) -> None:
    edge_index, edge_type = _graph(5, e=16)
    conv = GFBRGCNConv(F_IN, K, R, summarize=summarize, k_top=2).double()
    _randomize(conv, 6)
    x = torch.randn(N, F_IN, dtype=torch.float64, requires_grad=True)
    lam = conv.lam

    def fn(x_: torch.Tensor, lam_: torch.Tensor) -> torch.Tensor:
        return torch.func.functional_call(conv, {"lam": lam_}, (x_, edge_index, edge_type))

    assert torch.autograd.gradcheck(fn, (x, lam.detach().clone().requires_grad_(True)))


@pytest.mark.parametrize("base_cls", [RGCNConv, FastRGCNConv])
@pytest.mark.parametrize(
    ("featureless", "num_bases", "num_blocks"),
    [(True, None, None), (True, 2, None), (False, None, None), (False, 2, None),
     (False, None, 2)],
)
def test_equals_rgcn_when_lambda_zero(
    base_cls: type, featureless: bool, num_bases: int | None, num_blocks: int | None
) -> None:
    edge_index, edge_type = _graph(7)
    in_ch = N if featureless else 6
    kw = {"num_bases": num_bases, "num_blocks": num_blocks}
    gfb = GFBRGCNConv(in_ch, K, R, lambda_init=0.0, **kw).double()
    ref = base_cls(in_ch, K, R, **kw).double()
    _randomize(ref, 8)
    missing, unexpected = gfb.load_state_dict(ref.state_dict(), strict=False)
    assert missing == ["lam"] and unexpected == []
    assert float(gfb.lam) == 0.0
    x = None if featureless else torch.randn(N, in_ch, dtype=torch.float64)
    torch.testing.assert_close(gfb(x, edge_index, edge_type), ref(x, edge_index, edge_type),
                               rtol=1e-12, atol=1e-12)
    # ... and a non-zero lambda really changes the output
    with torch.no_grad():
        gfb.lam.fill_(0.5)
    assert not torch.allclose(gfb(x, edge_index, edge_type), ref(x, edge_index, edge_type))


def test_permutation_equivariance() -> None:
    edge_index, edge_type = _graph(9)
    conv = GFBRGCNConv(F_IN, K, R, num_bases=2).double()
    _randomize(conv, 10)
    x = torch.randn(N, F_IN, dtype=torch.float64)
    perm = torch.randperm(N, generator=torch.Generator().manual_seed(11))
    inv = torch.empty_like(perm)
    inv[perm] = torch.arange(N)  # new id of old node v is inv[v]
    out = conv(x, edge_index, edge_type)
    out_p = conv(x[perm], inv[edge_index], edge_type)
    torch.testing.assert_close(out_p, out[perm], rtol=1e-12, atol=1e-12)


def test_lambda_is_learnable_and_reset() -> None:
    edge_index, edge_type = _graph(12)
    conv = GFBRGCNConv(N, K, R, lambda_init=0.25)
    assert any(p is conv.lam for p in conv.parameters())
    assert float(conv.lam) == 0.25
    conv(None, edge_index, edge_type).pow(2).sum().backward()
    assert conv.lam.grad is not None and float(conv.lam.grad.abs()) > 0
    with torch.no_grad():
        conv.lam.fill_(3.0)
    conv.reset_parameters()
    assert float(conv.lam) == 0.25


def test_bipartite_and_bad_summarizer() -> None:
    edge_index, edge_type = _graph(13)
    conv = GFBRGCNConv(F_IN, K, R)
    x = torch.randn(N, F_IN)
    target = torch.tensor([0, 3])
    # only the edges that end in `target`, destinations renumbered to 0..1
    keep = (edge_index[1] == 0) | (edge_index[1] == 3)
    sub = torch.stack([edge_index[0, keep], (edge_index[1, keep] == 3).long()])
    out = conv((x, x[target]), sub, edge_type[keep])
    assert out.shape == (2, K)
    torch.testing.assert_close(out, conv(x, edge_index, edge_type)[target])
    with pytest.raises(ValueError, match="summarizer"):
        GFBRGCNConv(F_IN, K, R, summarize="median")


def _distinct_edges(seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """A random relational graph without repeated (source, target) pairs."""
    edge_index, edge_type = _graph(seed)
    key = (edge_index[0] * N + edge_index[1]).tolist()
    first = [key.index(k) for k in sorted(set(key))]
    return edge_index[:, first], edge_type[first]


@pytest.mark.parametrize("layout", ["coo", "csr"])
@pytest.mark.parametrize("featureless", [True, False])
def test_torch_sparse_adjacency_equals_edge_index(layout: str, featureless: bool) -> None:
    """A transposed torch.sparse adjacency (row = target) with ``edge_type`` given in its stored
    (target-major) order: same outputs and gradients as ``edge_index``."""
    edge_index, edge_type = _distinct_edges(14)
    conv = GFBRGCNConv(N if featureless else F_IN, K, R, num_bases=2, summarize="max").double()
    _randomize(conv, 15)
    order = torch.argsort(edge_index[1] * N + edge_index[0])
    adj_t = torch.sparse_coo_tensor(edge_index.flip(0)[:, order],
                                    torch.ones(order.numel(), dtype=torch.float64), (N, N))
    adj_t = adj_t.coalesce() if layout == "coo" else adj_t.coalesce().to_sparse_csr()
    x = None if featureless else torch.randn(N, F_IN, dtype=torch.float64)

    def outputs_and_grads(*graph_args) -> list[torch.Tensor]:
        out = conv(x, *graph_args)
        return [out.detach(), *torch.autograd.grad(out.square().sum(), list(conv.parameters()))]

    expected = outputs_and_grads(edge_index, edge_type)
    for a, b in zip(outputs_and_grads(adj_t, edge_type[order]), expected, strict=True):
        torch.testing.assert_close(a, b, rtol=1e-12, atol=1e-12)

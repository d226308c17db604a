"""GFBSAGEConv: repr, a literal float64 evaluation of its equation, equal edge_index and sparse
inputs, gradcheck, and ``SAGEConv`` at lambda = 0."""

from __future__ import annotations

import pytest
import torch
from torch import Tensor
from torch_geometric.nn import SAGEConv
from torch_geometric.utils import to_torch_csr_tensor

from gfbgcn.nn import GFBSAGEConv

from . import helpers

EDGES = torch.tensor([[0, 1, 2, 3, 4, 0, 2], [1, 2, 3, 4, 0, 3, 0]])
SUMMARIZERS = ("max", "mean", "diag", "topk", "upper")


def literal(conv: GFBSAGEConv, x: Tensor, edge_index: Tensor) -> Tensor:
    """Node by node: mean_{u in N(v)} [W_l x_u + lam GenVec(M_u)] + b_l + W_r x_v, with
    M_u = z z^T + eps I formed (helpers.literal_genvec)."""
    wl, bl, wr = conv.lin_l.weight, conv.lin_l.bias, conv.lin_r.weight
    rows = []
    for v in range(x.size(0)):
        msgs = []
        for u in edge_index[0, edge_index[1] == v].tolist():
            z = (wl @ x[u]).unsqueeze(0)
            g = helpers.literal_genvec(z, conv.summarize, conv.eps, conv.k_top, conv.exact)
            msgs.append(z[0] + conv.lam * g[0])
        agg = torch.stack(msgs).mean(0) if msgs else torch.zeros(wl.size(0), dtype=x.dtype)
        rows.append(agg + bl + wr @ x[v])
    return torch.stack(rows)


def test_repr() -> None:
    assert repr(GFBSAGEConv(3, 4)) == "GFBSAGEConv(3, 4, aggr=mean, summarize=diag)"
    assert repr(GFBSAGEConv(3, 4, summarize="MaxVec")) == \
        "GFBSAGEConv(3, 4, aggr=mean, summarize=max)"
    assert repr(GFBSAGEConv(3, 4, summarize="mean", aggr="sum")) == \
        "GFBSAGEConv(3, 4, aggr=sum, summarize=mean)"


@pytest.mark.parametrize("exact", [True, False])
@pytest.mark.parametrize("summarize", SUMMARIZERS)
def test_matches_literal_equation_float64(summarize: str, exact: bool) -> None:
    conv = helpers.randomize_(GFBSAGEConv(3, 4, summarize=summarize, exact=exact, eps=0.05,
                                          k_top=2), seed=1)
    x = helpers.features(n=5, d=3)
    out = conv(x, EDGES)
    assert out.shape == (5, 4) and out.dtype == torch.float64
    torch.testing.assert_close(out, literal(conv, x, EDGES), rtol=1e-10, atol=1e-10)


def test_matches_hand_computation_diagvec() -> None:
    torch.manual_seed(1)
    eps, lam = 0.01, 0.7
    conv = GFBSAGEConv(3, 2, summarize="diag", eps=eps, lambda_init=lam).double()
    x = torch.randn(5, 3, dtype=torch.float64)
    wl, bl, wr = conv.lin_l.weight, conv.lin_l.bias, conv.lin_r.weight
    expected = torch.empty(5, 2, dtype=torch.float64)
    for v in range(5):
        nbrs = EDGES[0, EDGES[1] == v].tolist()
        msgs = []
        for u in nbrs:
            z = wl @ x[u]
            m = torch.outer(z, z) + eps * torch.eye(2, dtype=torch.float64)  # M = z z^T + eps I
            msgs.append(z + lam * torch.diagonal(m))  # DiagVec
        agg = torch.stack(msgs).mean(0) if msgs else torch.zeros(2, dtype=torch.float64)
        expected[v] = agg + bl + wr @ x[v]
    torch.testing.assert_close(conv(x, EDGES), expected, rtol=1e-12, atol=1e-12)
    assert conv.lam.requires_grad and conv.lam.item() == lam


def test_lambda_zero_is_sageconv() -> None:
    torch.manual_seed(0)
    conv = GFBSAGEConv(5, 4, lambda_init=0.0)
    ref = SAGEConv(5, 4)
    ref.load_state_dict({k: v for k, v in conv.state_dict().items() if k != "lam"})
    x = torch.randn(5, 5)
    torch.testing.assert_close(conv(x, EDGES), ref(x, EDGES))


def test_gradcheck_float64() -> None:
    torch.manual_seed(2)
    conv = GFBSAGEConv(3, 4, summarize="diag", lambda_init=0.5).double()
    x = torch.randn(5, 3, dtype=torch.float64, requires_grad=True)
    params = [conv.lam, conv.lin_l.weight, conv.lin_l.bias, conv.lin_r.weight]

    def f(x: torch.Tensor, lam: torch.Tensor, wl, bl, wr) -> torch.Tensor:
        return torch.func.functional_call(
            conv,
            {"lam": lam, "lin_l.weight": wl, "lin_l.bias": bl, "lin_r.weight": wr},
            (x, EDGES),
        )

    inputs = (x, *[p.detach().clone().requires_grad_(True) for p in params])
    assert torch.autograd.gradcheck(f, inputs)


def test_max_summarizer_and_reset() -> None:
    conv = GFBSAGEConv(3, 4, summarize="MaxVec", lambda_init=0.25)
    with torch.no_grad():
        conv.lam.fill_(3.0)
    conv.reset_parameters()
    assert float(conv.lam.detach()) == 0.25
    assert conv(torch.randn(5, 3), EDGES).shape == (5, 4)
    assert sum(p.numel() for p in conv.parameters()) == 1 + 4 * 3 + 4 + 4 * 3


def test_sparse_input_equals_edge_index_input() -> None:
    torch.manual_seed(0)
    edge_index = torch.tensor([[0, 1, 2, 2, 3, 4, 0], [1, 2, 0, 3, 4, 0, 3]])  # no duplicates
    adj_t = to_torch_csr_tensor(edge_index.flip(0), size=(5, 5))
    conv = GFBSAGEConv(4, 3, summarize="diag")
    x = torch.randn(5, 4, requires_grad=True)
    out_sparse = conv(x, adj_t)
    (g_sparse,) = torch.autograd.grad(out_sparse.sum(), x)
    out_index = conv(x, edge_index)
    (g_index,) = torch.autograd.grad(out_index.sum(), x)
    torch.testing.assert_close(out_sparse, out_index)
    torch.testing.assert_close(g_sparse, g_index)


@pytest.mark.parametrize("aggr", ["mean", "sum"])
def test_every_sparse_form_equals_edge_index_float64(aggr: str) -> None:
    """torch.sparse COO and CSR (and SparseTensor where installed): outputs and gradients of
    the input and of every parameter equal the edge_index ones."""
    edge_index = torch.tensor([[0, 1, 2, 2, 3, 4, 0], [1, 2, 0, 3, 4, 0, 3]])  # no duplicates
    ones = torch.ones(edge_index.size(1), dtype=torch.float64)
    conv = helpers.randomize_(GFBSAGEConv(4, 3, summarize="max", aggr=aggr), seed=3)
    x = helpers.features(n=5, d=4)

    def outputs_and_grads(*graph_args) -> list[Tensor]:
        x_ = x.clone().requires_grad_()
        out = conv(x_, *graph_args)
        return [out.detach(), *torch.autograd.grad(out.square().sum(), [x_, *conv.parameters()])]

    expected = outputs_and_grads(edge_index)
    for fmt, adj_t in helpers.sparse_inputs(edge_index, ones, n=5).items():
        for a, b in zip(outputs_and_grads(adj_t), expected, strict=True):
            torch.testing.assert_close(a, b, rtol=1e-12, atol=1e-12, msg=fmt)


def test_rejected_options() -> None:
    with pytest.raises(ValueError, match="project"):
        GFBSAGEConv(3, 4, project=True)
    with pytest.raises(ValueError, match="aggregation"):
        GFBSAGEConv(3, 4, aggr="lstm")
    with pytest.raises(ValueError, match="k_top"):
        GFBSAGEConv(3, 2, summarize="topk", k_top=3)

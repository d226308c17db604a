"""GFBSAGEConv: equals SAGEConv at lambda = 0, matches a hand computation, gradcheck."""

from __future__ import annotations

import torch
from torch_geometric.nn import SAGEConv

from gfbgcn.nn.gfb_sage_conv import GFBSAGEConv

EDGES = torch.tensor([[0, 1, 2, 3, 4, 0, 2], [1, 2, 3, 4, 0, 3, 0]])


def test_lambda_zero_is_sageconv() -> None:
    torch.manual_seed(0)
    conv = GFBSAGEConv(5, 4, lambda_init=0.0)
    ref = SAGEConv(5, 4)
    ref.load_state_dict({k: v for k, v in conv.state_dict().items() if k != "lam"})
    x = torch.randn(5, 5)
    torch.testing.assert_close(conv(x, EDGES), ref(x, EDGES))


def test_matches_hand_computation_diagvec() -> None:
    torch.manual_seed(1)
    eps, lam = 0.01, 0.7
    conv = GFBSAGEConv(3, 2, summarize="diag", eps=eps, lambda_init=lam)
    x = torch.randn(5, 3)
    wl, bl, wr = conv.lin_l.weight, conv.lin_l.bias, conv.lin_r.weight
    expected = torch.empty(5, 2)
    for v in range(5):
        nbrs = EDGES[0, EDGES[1] == v].tolist()
        msgs = []
        for u in nbrs:
            z = wl @ x[u]
            m = torch.outer(z, z) + eps * torch.eye(2)  # M = z z^T + eps I
            msgs.append(z + lam * torch.diagonal(m))  # DiagVec
        agg = torch.stack(msgs).mean(0) if msgs else torch.zeros(2)
        expected[v] = agg + bl + wr @ x[v]
    torch.testing.assert_close(conv(x, EDGES), expected)
    assert conv.lam.requires_grad


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
    assert repr(conv) == "GFBSAGEConv(3, 4, aggr=mean, summarize=max)"
    assert sum(p.numel() for p in conv.parameters()) == 1 + 4 * 3 + 4 + 4 * 3


def test_sparse_input_equals_edge_index_input() -> None:
    from torch_geometric.utils import to_torch_csr_tensor

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

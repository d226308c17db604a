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


# -- lazy initialisation: in_channels=-1, as PyG's SAGEConv (and so to_hetero) takes them --


def test_lazy_in_channels_take_the_width_of_the_first_input() -> None:
    """``GFBSAGEConv(-1, k)`` sizes ``W_l`` and ``W_r`` from the first input it sees; with the
    same weights it computes what the eagerly built layer computes."""
    conv = GFBSAGEConv(-1, 4, lambda_init=0.5)
    assert repr(conv) == "GFBSAGEConv(-1, 4, aggr=mean, summarize=diag)"
    x = helpers.features(n=5, d=3).float()
    out = conv(x, EDGES)
    assert out.shape == (5, 4)
    assert conv.lin_l.weight.shape == (4, 3) and conv.lin_r.weight.shape == (4, 3)
    eager = GFBSAGEConv(3, 4, lambda_init=0.5)
    eager.load_state_dict(conv.state_dict())
    torch.testing.assert_close(out, eager(x, EDGES))


def test_lazy_pair_of_widths_for_a_bipartite_graph() -> None:
    """``(-1, -1)``: source and target nodes of different widths (a heterogeneous edge type)."""
    conv = GFBSAGEConv((-1, -1), 4)
    x_src, x_dst = torch.randn(5, 3), torch.randn(2, 6)
    edge_index = torch.tensor([[0, 1, 2, 3, 4], [0, 0, 1, 1, 1]])
    out = conv((x_src, x_dst), edge_index)
    assert out.shape == (2, 4)
    assert conv.lin_l.weight.shape == (4, 3) and conv.lin_r.weight.shape == (4, 6)


def test_lazy_layer_through_a_sparse_adjacency() -> None:
    """The fused sparse path initialises the lazy weights too."""
    adj_t = to_torch_csr_tensor(EDGES.flip(0), size=(5, 5))
    conv = GFBSAGEConv(-1, 4)
    assert conv(torch.randn(5, 3), adj_t).shape == (5, 4)
    assert conv.lin_l.weight.shape == (4, 3)


def test_lazy_layer_gradcheck_float64() -> None:
    """Once initialised by a float64 batch, gradients of the input, lambda and every weight
    are those of finite differences."""
    conv = GFBSAGEConv(-1, 4, summarize="max", lambda_init=0.5).double()
    x = helpers.features(n=5, d=3)
    with torch.no_grad():
        conv(x, EDGES)  # the dummy forward pass that materialises W_l and W_r
    helpers.randomize_(conv, seed=4)
    names = [name for name, _ in conv.named_parameters()]

    def f(x: Tensor, *params: Tensor) -> Tensor:
        return torch.func.functional_call(conv, dict(zip(names, params, strict=True)),
                                          (x, EDGES))

    inputs = (x.clone().requires_grad_(True),
              *[p.detach().clone().requires_grad_(True) for p in conv.parameters()])
    assert torch.autograd.gradcheck(f, inputs)


def test_lazy_layer_resets_and_round_trips_its_state_dict() -> None:
    """``reset_parameters`` before the first input leaves the weights lazy (as PyG's
    ``Linear``); a state dict saved after initialisation loads into a new lazy layer."""
    conv = GFBSAGEConv(-1, 4, lambda_init=0.25)
    conv.reset_parameters()
    x = torch.randn(5, 3)
    out = conv(x, EDGES)
    fresh = GFBSAGEConv(-1, 4)
    fresh.load_state_dict(conv.state_dict())
    torch.testing.assert_close(fresh(x, EDGES), out)


class _TwoLayers(torch.nn.Module):
    """Two lazy layers: the model ``to_hetero`` turns into one layer per edge type."""

    def __init__(self, conv: type[torch.nn.Module], **kwargs: object) -> None:
        super().__init__()
        self.conv1 = conv((-1, -1), 8, **kwargs)
        self.conv2 = conv((-1, -1), 4, **kwargs)

    def forward(self, x: Tensor, edge_index: Tensor) -> Tensor:
        return self.conv2(self.conv1(x, edge_index).relu(), edge_index)


def _hetero_graph() -> tuple[dict[str, Tensor], dict[tuple[str, str, str], Tensor]]:
    """Papers of width 5 and authors of width 3, linked both ways, papers citing papers."""
    gen = torch.Generator().manual_seed(0)
    x = {"paper": torch.randn(6, 5, generator=gen), "author": torch.randn(4, 3, generator=gen)}
    writes = torch.tensor([[0, 0, 1, 2, 3, 3], [0, 1, 2, 3, 4, 5]])
    edges = {("author", "writes", "paper"): writes,
             ("paper", "rev_writes", "author"): writes.flip(0),
             ("paper", "cites", "paper"): torch.tensor([[0, 1, 2, 3, 4], [1, 2, 3, 4, 5]])}
    return x, edges


def test_to_hetero_over_node_types_of_different_widths() -> None:
    """``torch_geometric.nn.to_hetero`` over papers (5 features) and authors (3): the lazy
    layers size themselves per edge type on the first pass, as ``SAGEConv``'s do, and train;
    at lambda = 0 the heterogeneous model is the ``SAGEConv`` one, weight for weight."""
    from torch_geometric.nn import to_hetero

    x, edges = _hetero_graph()
    metadata = (list(x), list(edges))
    torch.manual_seed(0)
    model = to_hetero(_TwoLayers(GFBSAGEConv, lambda_init=0.0), metadata, aggr="sum")
    with torch.no_grad():
        out = model(x, edges)  # initialises every lazy weight
    assert {k: tuple(v.shape) for k, v in out.items()} == {"paper": (6, 4), "author": (4, 4)}
    ref = to_hetero(_TwoLayers(SAGEConv), metadata, aggr="sum")
    with torch.no_grad():
        ref(x, edges)
    ref.load_state_dict({k: v for k, v in model.state_dict().items()
                         if not k.endswith(".lam")})
    for node_type, expected in ref(x, edges).items():
        torch.testing.assert_close(model(x, edges)[node_type], expected)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith(".lam"):
                p.fill_(0.5)  # the second-order term on: the output moves, and trains
    loss = sum(o.square().sum() for o in model(x, edges).values())
    loss.backward()
    lams = [p for name, p in model.named_parameters() if name.endswith(".lam")]
    assert len(lams) == 2 * len(edges) and all(p.grad is not None for p in lams)

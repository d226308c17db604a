"""TwoLayerTextGCN against the literal two-layer formula ``Z = Layer2(dropout(ReLU(Â W1)), Â)``."""

from __future__ import annotations

import pytest
import torch
from torch import Tensor

from gfbgcn.nn import CachedTransposeGCNConv, GFBConv, TwoLayerTextGCN
from gfbgcn.nn.utils import keep_mask

N, HIDDEN, C = 7, 5, 3
# an undirected weighted graph (both directions), node 6 isolated
PAIRS = [(0, 1, 0.7), (0, 3, 1.9), (1, 2, 0.4), (2, 3, 1.1), (3, 4, 0.8), (4, 5, 2.3)]


def a_hat_by_hand() -> Tensor:
    """D^-1/2 (A + I) D^-1/2 written out: A symmetric, deg_i = 1 + sum_j A_ij."""
    a = torch.zeros(N, N, dtype=torch.float64)
    for i, j, w in PAIRS:
        a[i, j] = a[j, i] = w
    a_tilde = a + torch.eye(N, dtype=torch.float64)
    d_inv_sqrt = torch.diag(a_tilde.sum(1).rsqrt())
    return d_inv_sqrt @ a_tilde @ d_inv_sqrt


def randomize_(model: torch.nn.Module, seed: int = 0) -> torch.nn.Module:
    model.double()
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.rand(p.shape, generator=gen, dtype=p.dtype) - 0.5)
    return model


def second_layer(name: str) -> torch.nn.Module:
    if name == "gcn":
        return CachedTransposeGCNConv(HIDDEN, C, normalize=False, bias=False)
    return GFBConv(HIDDEN, C, summarize="max", eps=0.01, normalize=False, bias=False)


def literal_layer2(name: str, conv: torch.nn.Module, h: Tensor, a: Tensor) -> Tensor:
    """GCN: Â H W^T.  GFB-MaxVec (Eq. cfm): Â (H W^T + lambda max_j M_ij), M = z z^T + eps I."""
    z = h @ conv.lin.weight.t()
    if name == "gcn":
        return a @ z
    m = z[:, :, None] * z[:, None, :] + conv.eps * torch.eye(C, dtype=z.dtype)
    return a @ (z + conv.lam * m.max(dim=-1).values)


@pytest.mark.parametrize("name", ["gcn", "gfb-max"])
def test_equals_the_literal_two_layer_formula_in_eval_mode(name: str) -> None:
    a = a_hat_by_hand()
    model = randomize_(TwoLayerTextGCN(N, second_layer(name), hidden=HIDDEN, dropout=0.5)).eval()
    if name != "gcn":
        assert model.conv2.lam.item() != 0.0  # the second-order term is exercised
    h = torch.relu(a @ model.w1)  # layer 1 on identity features: ReLU(Â I W1)
    expected = literal_layer2(name, model.conv2, h, a)  # eval: dropout is the identity
    out = model(a.to_sparse_csr())
    assert out.shape == (N, C) and out.dtype == torch.float64
    torch.testing.assert_close(out, expected, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(model.hidden(a.to_sparse_csr()), h, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["gcn", "gfb-max"])
def test_dropout_acts_on_the_hidden_layer_only_in_training(name: str) -> None:
    a = a_hat_by_hand().to_sparse_csr()
    model = randomize_(TwoLayerTextGCN(N, second_layer(name), hidden=HIDDEN, dropout=0.5))
    model.eval()
    torch.testing.assert_close(model(a), model(a))
    model.train()
    torch.manual_seed(0)
    first, second = model(a), model(a)
    assert not torch.allclose(first, second)
    # the training output is Layer2 on a dropout mask of ReLU(Â W1) (inverted dropout: x2)
    torch.manual_seed(1)
    trained = model(a)
    torch.manual_seed(1)
    h = torch.relu(a_hat_by_hand() @ model.w1)
    h = h * keep_mask(h, 0.5) * 2.0  # the CPU mask of gfbgcn.nn.utils.dropout
    torch.testing.assert_close(trained, literal_layer2(name, model.conv2, h, a_hat_by_hand()),
                               rtol=1e-12, atol=1e-12)


def test_repr_parameters_and_reset() -> None:
    conv2 = GFBConv(HIDDEN, C, normalize=False, bias=False, lambda_init=0.5)
    model = TwoLayerTextGCN(N, conv2, hidden=HIDDEN)
    assert model.w1.shape == (N, HIDDEN) and model.dropout == 0.5
    assert repr(model) == "TwoLayerTextGCN(7, hidden=5, conv2=GFBConv(5, 3, summarize=max))"
    assert sum(p.numel() for p in model.parameters()) == N * HIDDEN + HIDDEN * C + 1
    with torch.no_grad():
        model.w1.zero_()
        conv2.lam.fill_(3.0)
    model.reset_parameters()  # both layers
    assert model.w1.abs().sum() > 0 and conv2.lam.item() == 0.5

"""FeatureTextGCN with sparse input features (``X = [I | F]``, ``F`` a CSR matrix)."""

from __future__ import annotations

import pytest
import torch
from torch.func import functional_call
from torch_geometric.nn import GCNConv

from gfbgcn.nn.conv import GFBConv
from gfbgcn.nn.models import FeatureTextGCN


def _tiny(num_docs: int = 4, num_words: int = 5, f: int = 6, seed: int = 0):
    """A symmetric normalised ``Â`` ``[N, N]`` (CSR) and a sparse ``F`` whose word rows are
    empty, both float64."""
    gen = torch.Generator().manual_seed(seed)
    n = num_docs + num_words
    a = (torch.rand(n, n, generator=gen) < 0.4).double() * torch.rand(n, n, generator=gen)
    a = a + a.T + torch.eye(n, dtype=torch.float64)
    d = a.sum(1).rsqrt()
    adj = (d[:, None] * a * d[None, :]).to_sparse_csr()
    dense_f = (torch.rand(n, f, generator=gen) < 0.5).double() * torch.rand(n, f, generator=gen)
    dense_f[num_docs:] = 0  # word nodes: identity only
    return adj, dense_f


def _model(adj, dense_f, conv2, hidden):
    torch.manual_seed(0)
    return FeatureTextGCN(adj.shape[0], conv2, dense_f.to_sparse_csr(), hidden).double()


def test_sparse_factored_layer_equals_the_dense_concatenated_input():
    """``Â (W1 + F W2)`` with a sparse ``F`` against ``Â [I | F] [W1; W2]`` formed densely."""
    adj, dense_f = _tiny()
    n, hidden = adj.shape[0], 3
    model = _model(adj, dense_f, GFBConv(hidden, 2, normalize=False, bias=False), hidden)
    assert model.sparse_features and model.features.dtype == torch.float64
    x = torch.cat([torch.eye(n, dtype=torch.float64), dense_f], dim=1)  # [N, N + f]
    w = torch.cat([model.w1, model.w2], dim=0)  # [N + f, hidden]
    expected = torch.relu(adj.to_dense() @ x @ w)
    assert torch.allclose(model.hidden(adj), expected, rtol=0, atol=1e-12)
    # the rows mini-batch training reads: F[nodes] W2
    nodes = torch.tensor([3, 0, 7])
    assert torch.allclose(model.feature_rows(nodes), dense_f[nodes] @ model.w2, atol=1e-12)
    # the features are fixed (no gradient, not in the state dict); W2 is trained
    model(adj).sum().backward()
    assert "features" not in model.state_dict() and model.w2.grad is not None
    assert model.w2.grad.abs().sum() > 0


def test_sparse_features_gradcheck():
    adj, dense_f = _tiny(3, 3, 4)
    hidden = 2
    model = _model(adj, dense_f, GCNConv(hidden, 2, normalize=False, bias=False), hidden)
    model.dropout = 0.0

    def logits(w1, w2):
        return functional_call(model, {"w1": w1, "w2": w2}, (adj,))

    w1 = model.w1.detach().clone().requires_grad_()
    w2 = model.w2.detach().clone().requires_grad_()
    assert torch.autograd.gradcheck(logits, (w1, w2), eps=1e-6, atol=1e-6)


def test_features_must_be_dense_or_csr_and_fit_the_nodes():
    adj, dense_f = _tiny()
    conv = GCNConv(3, 2, normalize=False, bias=False)
    with pytest.raises(ValueError, match="dense or sparse CSR"):
        FeatureTextGCN(adj.shape[0], conv, dense_f.to_sparse_coo(), 3)
    with pytest.raises(ValueError, match="num_nodes"):
        FeatureTextGCN(adj.shape[0] + 1, conv, dense_f.to_sparse_csr(), 3)

"""WeightedGINConv: GIN whose neighbour sum is the GCN-normalised (WAP) sum of Text GIN."""

from __future__ import annotations

import pytest
import torch
from torch import Tensor
from torch_geometric.nn import GINConv
from torch_geometric.nn.models import MLP

from gfbgcn.nn import WeightedGINConv

from .helpers import OUT, D


def factory(**kwargs) -> WeightedGINConv:
    return WeightedGINConv(MLP([D, 5, OUT], norm=None), train_eps=True, **kwargs)


def reference(layer: WeightedGINConv, x: Tensor, a: Tensor) -> Tensor:
    """MLP((1 + eps) x_v + sum_u a_vu x_u)."""
    return layer.nn((1 + layer.eps) * x + a @ x)


def test_repr() -> None:
    assert repr(factory()) == "WeightedGINConv(nn=MLP(4, 5, 3))"


# ---- WeightedGINConv specifics -------------------------------------------------------------

N = 7
SRC = [0, 1, 1, 2, 3, 4, 5, 6, 2, 0]
DST = [1, 0, 2, 1, 4, 3, 6, 5, 6, 0]


def test_weighted_gin_reduces_to_gin_on_raw_unit_weights() -> None:
    edge_index = torch.tensor([SRC, DST])
    weight = 0.2 + torch.rand(len(SRC), generator=torch.Generator().manual_seed(0),
                              dtype=torch.float64)
    x = torch.randn(N, 4, dtype=torch.float64)
    mlp = MLP([4, 5, 2], norm=None).double()
    ours = WeightedGINConv(mlp, eps=0.3, normalize=False)
    pyg = GINConv(mlp, eps=0.3)
    torch.testing.assert_close(ours(x, edge_index), pyg(x, edge_index))
    # with WAP normalisation and weights it differs from the unweighted sum
    weighted = WeightedGINConv(mlp, eps=0.3)
    assert not torch.allclose(weighted(x, edge_index, weight), pyg(x, edge_index))
    assert "eps" not in dict(ours.named_parameters())
    trained = WeightedGINConv(mlp, eps=0.3, train_eps=True)
    assert dict(trained.named_parameters())["eps"].item() == pytest.approx(0.3)

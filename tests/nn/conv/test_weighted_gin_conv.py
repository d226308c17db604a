"""WeightedGINConv: GIN whose neighbour sum is the GCN-normalised (WAP) sum of Text GIN."""

from __future__ import annotations

import pytest
import torch
from torch import Tensor
from torch_geometric.nn import GINConv
from torch_geometric.nn.models import MLP

from gfbgcn.nn import WeightedGINConv

from . import helpers
from .helpers import OUT, D


def factory(**kwargs) -> WeightedGINConv:
    return WeightedGINConv(MLP([D, 5, OUT], norm=None), train_eps=True, **kwargs)


def reference(layer: WeightedGINConv, x: Tensor, a: Tensor) -> Tensor:
    """MLP((1 + eps) x_v + sum_u a_vu x_u)."""
    return layer.nn((1 + layer.eps) * x + a @ x)


def test_repr() -> None:
    assert repr(factory()) == "WeightedGINConv(nn=MLP(4, 5, 3))"


# ---- the checks every layer has (tests/nn/conv/helpers.py) --------------------------------


def test_matches_dense_equation() -> None:
    helpers.check_dense_equation(factory, reference)


def test_matches_dense_equation_without_normalisation() -> None:
    helpers.check_dense_equation_without_normalisation(factory, reference)


def test_self_loops_require_normalisation() -> None:
    helpers.check_self_loops_require_normalisation(factory)


def test_gradcheck_inputs_and_parameters() -> None:
    helpers.check_gradcheck(factory)


def test_permutation_equivariance() -> None:
    helpers.check_permutation_equivariance(factory)


@pytest.mark.parametrize("normalize", [True, False])
def test_sparse_adjacency_equals_edge_index(normalize: bool) -> None:
    helpers.check_sparse_equals_edge_index(factory, normalize)


def test_cached_normalisation_is_computed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    helpers.check_cached_normalisation(factory, monkeypatch)


def test_state_dict_round_trip() -> None:
    helpers.check_state_dict_round_trip(factory)


def test_output_shape_float32_and_isolated_nodes() -> None:
    helpers.check_float32_shape_and_isolated_nodes(factory)


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

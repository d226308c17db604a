"""The contract every message-passing layer of ``gfbgcn.nn.conv`` keeps, checked once for all.

Each layer's test file defines ``factory(**kwargs)`` (the layer with small test settings) and
``reference(layer, x, a)`` (its equation evaluated literally, densely, in float64); the checks
of :mod:`tests.nn.conv.helpers` then hold for every layer: the dense equation with and without
normalisation, self-loops only with normalisation, ``gradcheck`` of inputs and parameters,
permutation equivariance, sparse adjacencies equal to ``edge_index``, the cached
normalisation computed once, ``state_dict`` round trips, float32 shapes and isolated nodes.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from . import helpers
from . import test_bp_conv as bp
from . import test_cbp_conv as cbp
from . import test_fbp_conv as fbp
from . import test_gcn_norm_conv as gcn_norm
from . import test_gfb_conv as gfb
from . import test_sqrt_gcn_conv as sqrt
from . import test_weighted_gin_conv as gin

#: (id, factory, reference) of every layer under contract.
LAYERS: list[tuple[str, Callable, Callable]] = [
    ("SecondOrderConv", gcn_norm.factory, gcn_norm.reference),
    ("FBPConv", fbp.factory, fbp.reference),
    ("BPConv", bp.factory, bp.reference),
    ("CBPConv", cbp.factory, cbp.reference),
    ("SqrtGCNConv", sqrt.factory, sqrt.reference),
    ("WeightedGINConv", gin.factory, gin.reference),
    *[(f"GFBConv-{name}", gfb.factory(summarize, exact), gfb.reference)
      for name, (summarize, exact) in zip(gfb.IDS, gfb.CONFIGS)],
]
IDS = [name for name, _, _ in LAYERS]
FACTORIES = pytest.mark.parametrize("factory", [f for _, f, _ in LAYERS], ids=IDS)


@pytest.mark.parametrize(("factory", "reference"), [(f, r) for _, f, r in LAYERS], ids=IDS)
def test_matches_dense_equation(factory, reference) -> None:
    helpers.check_dense_equation(factory, reference)


@pytest.mark.parametrize(("factory", "reference"), [(f, r) for _, f, r in LAYERS], ids=IDS)
def test_matches_dense_equation_without_normalisation(factory, reference) -> None:
    helpers.check_dense_equation_without_normalisation(factory, reference)


@FACTORIES
def test_self_loops_require_normalisation(factory) -> None:
    helpers.check_self_loops_require_normalisation(factory)


@FACTORIES
def test_gradcheck_inputs_and_parameters(factory) -> None:
    helpers.check_gradcheck(factory)


@FACTORIES
def test_permutation_equivariance(factory) -> None:
    helpers.check_permutation_equivariance(factory)


@pytest.mark.parametrize("normalize", [True, False])
@FACTORIES
def test_sparse_adjacency_equals_edge_index(factory, normalize: bool) -> None:
    helpers.check_sparse_equals_edge_index(factory, normalize)


@FACTORIES
def test_cached_normalisation_is_computed_once(factory, monkeypatch: pytest.MonkeyPatch) -> None:
    helpers.check_cached_normalisation(factory, monkeypatch)


@FACTORIES
def test_state_dict_round_trip(factory) -> None:
    helpers.check_state_dict_round_trip(factory)


@FACTORIES
def test_output_shape_float32_and_isolated_nodes(factory) -> None:
    helpers.check_float32_shape_and_isolated_nodes(factory)

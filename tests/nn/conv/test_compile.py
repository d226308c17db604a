"""``torch.compile`` smoke test: every layer of ``gfbgcn.nn.conv`` compiles as one graph and gives
the eager outputs and gradients on a small graph.

The backend is ``aot_eager``: it traces through dynamo (``fullgraph=True``: a graph break fails
the test) and AOT autograd (the backward graph), then runs the traced ATen ops eagerly.  Inductor
would also generate and compile C++ for each layer (it needs a C compiler): measured on 2 CPU
cores, forward passes only, about 50 s for these layers (30 s of it the first layer's, with the
compiler's start-up) against about 10 s with ``aot_eager``, too slow for CI; what breaks a layer
under ``torch.compile`` (Python the tracer refuses, data-dependent shapes, graph breaks) fails
here already.

Inputs are ``edge_index`` (with weights or relation types): torch sparse adjacencies cannot be
compiled at all (dynamo refuses to wrap a sparse tensor: "torch.compile does not support sparse
Tensors", torch 2.13), whatever the layer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
import torch
from torch import Tensor

import gfbgcn.nn.conv as conv_package
from gfbgcn.nn.conv import (
    BPConv,
    CachedTransposeGCNConv,
    CBPConv,
    FBPConv,
    GFBConv,
    GFBRGCNConv,
    GFBSAGEConv,
    SqrtGCNConv,
    WeightedGINConv,
)

from . import helpers
from .helpers import OUT, D
from .test_gcn_norm_conv import ScaledLinear

RELATIONS = 3

#: (id, layer factory, its input after ``edge_index``: edge weights, relation types or none)
LAYERS: list[tuple[str, Callable[[], torch.nn.Module], str]] = [
    ("SecondOrderConv", lambda: ScaledLinear(D, OUT), "weight"),
    ("BPConv", lambda: BPConv(D, OUT, eps=0.05, chunk_size=4), "weight"),
    ("CBPConv", lambda: CBPConv(D, OUT, sketch_dim=16), "weight"),
    ("CachedTransposeGCNConv", lambda: CachedTransposeGCNConv(D, OUT), "weight"),
    ("FBPConv", lambda: FBPConv(D, OUT, rank=3), "weight"),
    ("GFBConv-exact", lambda: GFBConv(D, OUT, summarize="max"), "weight"),
    ("GFBConv-fast", lambda: GFBConv(D, OUT, summarize="diag", exact=False), "weight"),
    ("GFBRGCNConv", lambda: GFBRGCNConv(D, OUT, RELATIONS, num_bases=2), "type"),
    ("GFBSAGEConv", lambda: GFBSAGEConv(D, OUT), "none"),
    ("SqrtGCNConv", lambda: SqrtGCNConv(D, OUT), "weight"),
    ("WeightedGINConv", lambda: WeightedGINConv(torch.nn.Linear(D, OUT)), "weight"),
]
#: abstract bases, compiled through their subclasses (SecondOrderConv through a test subclass)
BASES = {"GCNNormConv"}


@pytest.fixture(autouse=True)
def _fresh_dynamo() -> Iterator[None]:
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def test_every_layer_is_compiled() -> None:
    names = {name.split("-")[0] for name, _, _ in LAYERS}
    assert names | BASES == set(conv_package.__all__)


@pytest.mark.parametrize(("factory", "third"), [(f, t) for _, f, t in LAYERS],
                         ids=[name for name, _, _ in LAYERS])
def test_compiled_layer_equals_eager(factory: Callable[[], torch.nn.Module], third: str) -> None:
    layer = helpers.make(factory)  # float64, non-trivial parameters
    edge_index, weight = helpers.graph()
    edges: tuple[Tensor, ...] = {
        "weight": (edge_index, weight),
        "type": (edge_index, torch.arange(edge_index.size(1)) % RELATIONS),
        "none": (edge_index,),
    }[third]
    x = helpers.features().requires_grad_(True)
    params = [p for p in layer.parameters() if p.requires_grad]
    g = torch.randn(x.size(0), OUT, generator=torch.Generator().manual_seed(3),
                    dtype=torch.float64)

    def run(module: Callable[..., Tensor]) -> tuple[Tensor, ...]:
        out = module(x, *edges)
        return (out, *torch.autograd.grad((out * g).sum(), [x, *params]))

    want = run(layer)
    got = run(torch.compile(layer, backend="aot_eager", fullgraph=True))
    assert got[0].shape == (x.size(0), OUT)
    for a, b in zip(got, want):
        torch.testing.assert_close(a, b, rtol=1e-10, atol=1e-12)

"""Second-order normalisation options (``second_norm``, ``second_scale``) of GFBConv, FBPConv and
BPConv against literal float64 evaluations of their definitions (every feature formed, the
signed square root and the ℓ2 norm written out element by element)."""

from __future__ import annotations

import math

import pytest
import torch
from torch import Tensor

from gfbgcn.nn import GFBConv
from gfbgcn.nn.conv import BPConv, FBPConv
from gfbgcn.nn.second_norm import (
    POWER_DELTA,
    SECOND_NORMS,
    normalize_second,
    signed_sqrt,
)

from .conv import helpers
from .conv.helpers import OUT, D

MODES = [m for m in SECOND_NORMS if m != "none"]


def literal_norm(f: Tensor, mode: str, scale: float) -> Tensor:
    """The definition, one row and one entry at a time (no shared code with the module)."""
    rows = []
    for row in f.tolist():
        if mode in ("power", "power-l2"):
            row = [math.copysign(1.0, v) * (math.sqrt(abs(v) + POWER_DELTA)
                                            - math.sqrt(POWER_DELTA)) if v != 0 else 0.0
                   for v in row]
        if mode in ("l2", "power-l2"):
            norm = math.sqrt(sum(v * v for v in row))
            row = [v / max(norm, 1e-12) for v in row]
        rows.append([scale * v for v in row])
    return torch.tensor(rows, dtype=torch.float64)


@pytest.mark.parametrize("mode", MODES)
def test_normalize_second_matches_definition(mode: str) -> None:
    f = torch.randn(5, 7, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    f[0, 3] = 0.0
    torch.testing.assert_close(normalize_second(f, mode, 2.5), literal_norm(f, mode, 2.5),
                               rtol=1e-12, atol=1e-12)


def test_none_is_the_identity_whatever_the_scale() -> None:
    f = torch.randn(4, 3)
    assert normalize_second(f, "none", 7.0) is f


# ---- signed_sqrt: sign(f) (sqrt(|f| + delta) - sqrt(delta)), slope 1 / (2 sqrt(delta)) at 0 --


def _literal_ssqrt(v: float, delta: float) -> float:
    return math.copysign(1.0, v) * (math.sqrt(abs(v) + delta) - math.sqrt(delta)) if v else 0.0


@pytest.mark.parametrize("delta", [POWER_DELTA, 1e-2, 0.3])
def test_signed_sqrt_values(delta: float) -> None:
    z = torch.tensor([-9.0, -0.37, -1e-4, -1e-9, 0.0, 1e-9, 1e-4, 0.37, 4.0, 1e6],
                     dtype=torch.float64)
    want = torch.tensor([_literal_ssqrt(v, delta) for v in z.tolist()], dtype=torch.float64)
    got = signed_sqrt(z, delta)
    torch.testing.assert_close(got, want, rtol=1e-9, atol=1e-15)
    assert got[4].item() == 0.0
    torch.testing.assert_close(signed_sqrt(-z, delta), -got, rtol=0, atol=0)  # odd, exactly
    big = torch.linspace(-100, 100, 201, dtype=torch.float64)
    gap = signed_sqrt(big, delta) - torch.sign(big) * big.abs().sqrt()
    assert gap.abs().max() <= math.sqrt(delta)


@pytest.mark.parametrize("delta", [POWER_DELTA, 1e-2])
def test_signed_sqrt_gradient_at_zero_is_the_slope_there(delta: float) -> None:
    """At exactly 0 (a ReLU output) autograd gives the function's derivative
    1 / (2 sqrt(delta)), not 0 (the subgradient of ``sign``) nor inf (plain ``sqrt``)."""
    z = torch.zeros(3, dtype=torch.float64, requires_grad=True)
    (grad,) = torch.autograd.grad(signed_sqrt(z, delta).sum(), z)
    assert grad.tolist() == pytest.approx([1 / (2 * math.sqrt(delta))] * 3, rel=1e-12)
    # and it is the limit of the derivative from either side
    for side in (1e-12, -1e-12):
        near = torch.tensor([side], dtype=torch.float64, requires_grad=True)
        (g,) = torch.autograd.grad(signed_sqrt(near, delta).sum(), near)
        assert g.item() == pytest.approx(1 / (2 * math.sqrt(delta)), rel=1e-4)


@pytest.mark.parametrize("delta", [POWER_DELTA, 1e-2])
def test_signed_sqrt_gradient_elsewhere(delta: float) -> None:
    z = torch.tensor([-7.0, -0.5, -1e-3, 2e-3, 0.25, 3.0], dtype=torch.float64,
                     requires_grad=True)
    (grad,) = torch.autograd.grad(signed_sqrt(z, delta).sum(), z)
    want = 1 / (2 * torch.sqrt(z.detach().abs() + delta))
    torch.testing.assert_close(grad, want, rtol=1e-12, atol=0)
    assert torch.autograd.gradcheck(lambda t: signed_sqrt(t, delta), (z,))


def test_signed_sqrt_keeps_tiny_values_in_float32() -> None:
    """|f| << delta in float32: sqrt(|f| + delta) - sqrt(delta) would round to 0."""
    f = torch.tensor([1e-12, -3e-10], dtype=torch.float32)
    got = signed_sqrt(f)
    want = signed_sqrt(f.double())
    torch.testing.assert_close(got.double(), want, rtol=1e-6, atol=0)
    assert (got != 0).all()


def test_unknown_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="second-order normalisation"):
        GFBConv(4, 3, second_norm="sqrt")


# ---- GFBConv: z = h' + lambda s N(GenVec(h'h'^T + eps I)) --------------------------------


@pytest.mark.parametrize("summarize", ["max", "diag", "mean"])
@pytest.mark.parametrize("mode", MODES)
def test_gfb_second_norm_matches_dense_equation(summarize: str, mode: str) -> None:
    def make(**kwargs) -> GFBConv:
        return GFBConv(D, OUT, summarize=summarize, eps=0.05, second_norm=mode,
                       second_scale=1.7, **kwargs)

    def reference(layer: GFBConv, x: Tensor, a: Tensor) -> Tensor:
        h = x @ layer.lin.weight.t()
        second = helpers.literal_genvec(h, layer.summarize, layer.eps, layer.k_top, True)
        return a @ (h + layer.lam * literal_norm(second, mode, 1.7)) + layer.bias

    helpers.check_dense_equation(make, reference)


def test_gfb_default_equals_none_bit_for_bit() -> None:
    torch.manual_seed(0)
    a = GFBConv(D, OUT, summarize="max")
    torch.manual_seed(0)
    b = GFBConv(D, OUT, summarize="max", second_norm="none", second_scale=3.0)
    x = torch.randn(5, D)
    assert torch.equal(a.node_features(x), b.node_features(x))
    assert repr(a) == "GFBConv(4, 3, summarize=max)"
    assert "second_norm=l2" in repr(GFBConv(D, OUT, second_norm="l2"))


# ---- FBPConv: L s N(vec(W x x^T W^T + eps I)) ---------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_fbp_second_norm_matches_dense_equation(mode: str) -> None:
    def make(**kwargs) -> FBPConv:
        return FBPConv(D, OUT, rank=3, eps=0.05, second_norm=mode, second_scale=0.8, **kwargs)

    def reference(layer: FBPConv, x: Tensor, a: Tensor) -> Tensor:
        h = x @ layer.proj.weight.t()
        feats = torch.stack([(torch.outer(r, r) + 0.05 * torch.eye(3, dtype=r.dtype)).flatten()
                             for r in h])
        return a @ (literal_norm(feats, mode, 0.8) @ layer.lin.weight.t()) + layer.bias

    helpers.check_dense_equation(make, reference)


# ---- BPConv: W s N(vec_upper(x x^T + eps I)) ----------------------------------------------


def _bp_reference(mode: str, scale: float):
    def reference(layer: BPConv, x: Tensor, a: Tensor) -> Tensor:
        d = x.size(1)
        feats = torch.stack([
            torch.stack([r[i] * r[j] + (layer.eps if i == j else 0.0)
                         for i in range(d) for j in range(i, d)]) for r in x])
        return a @ (literal_norm(feats, mode, scale) @ layer.weight.t()) + layer.bias

    return reference


@pytest.mark.parametrize("mode", MODES)
def test_bp_second_norm_matches_dense_equation(mode: str) -> None:
    def make(**kwargs) -> BPConv:
        return BPConv(D, OUT, eps=0.05, second_norm=mode, second_scale=2.0, chunk_size=4,
                      **kwargs)

    helpers.check_dense_equation(make, _bp_reference(mode, 2.0))


@pytest.mark.parametrize("mode", MODES)
def test_bp_second_norm_gradients_match_materialised(mode: str) -> None:
    """The closed-form ℓ2 path and the checkpointed power path give the gradients of the
    literal, materialised features."""
    layer = helpers.make(lambda: BPConv(5, 3, eps=0.01, second_norm=mode, chunk_size=3))
    x = helpers.features(n=7, d=5).relu().requires_grad_(True)  # exact zeros, as after a ReLU
    out = layer.node_features(x)
    ref = layer.materialized_node_features(x)
    torch.testing.assert_close(out, ref, rtol=1e-10, atol=1e-10)
    g = torch.randn_like(out)
    got = torch.autograd.grad((out * g).sum(), [x, layer.weight])
    want = torch.autograd.grad((ref * g).sum(), [x, layer.weight])
    for a, b in zip(got, want):
        torch.testing.assert_close(a, b, rtol=1e-9, atol=1e-9)

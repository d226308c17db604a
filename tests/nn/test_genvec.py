"""GenVec (definition below Eq. ``cfm``): exact forms vs. the explicit outer product, fast forms,
and the ordering of Eq. ``ineq``."""

from __future__ import annotations

import pytest
import torch

from gfbgcn.nn.genvec import SUMMARIZERS, canonical_summarizer, genvec, genvec_reference

EPSILONS = (0.0, 1e-3, 0.7)
SIZES = (1, 2, 3, 5, 16)


def _mixed(n: int, k: int, seed: int) -> torch.Tensor:
    gen = torch.Generator().manual_seed(seed)
    return torch.randn(n, k, generator=gen, dtype=torch.float64)


@pytest.mark.parametrize("summarize", ["max", "mean", "diag"])
@pytest.mark.parametrize("k", SIZES)
@pytest.mark.parametrize("eps", EPSILONS)
def test_exact_equals_reference_mixed_sign(summarize: str, k: int, eps: float) -> None:
    h = _mixed(64, k, seed=10 * k)
    assert (h < 0).any() and (h > 0).any()
    out = genvec(h, summarize, eps=eps, exact=True)
    ref = genvec_reference(h, summarize, eps=eps)
    assert out.shape == h.shape
    torch.testing.assert_close(out, ref, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("k", (1, 2, 3, 5, 16))
@pytest.mark.parametrize("eps", EPSILONS)
def test_topk_exact_equals_reference_mixed_sign(k: int, eps: float) -> None:
    h = _mixed(64, k, seed=7 + k)
    for k_top in sorted({1, min(2, k), min(3, k), k}):
        out = genvec(h, "topk", eps=eps, exact=True, k_top=k_top)
        ref = genvec_reference(h, "topk", eps=eps, k_top=k_top)
        torch.testing.assert_close(out, ref, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("k", SIZES)
def test_upper_equals_reference(k: int) -> None:
    p = torch.rand(32, k, dtype=torch.float64, generator=torch.Generator().manual_seed(k))
    torch.testing.assert_close(genvec(p, "upper"), genvec_reference(p, "upper"))
    expected = p * (1 - torch.prod(1 - p, dim=-1, keepdim=True))
    torch.testing.assert_close(genvec(p, "upper"), expected)


@pytest.mark.parametrize("summarize", ["max", "mean", "diag", "topk"])
@pytest.mark.parametrize("k", (3, 8))
def test_fast_form_equals_reference_on_nonnegative_inputs(summarize: str, k: int) -> None:
    h = _mixed(64, k, seed=3).abs()
    fast = genvec(h, summarize, eps=0.0, exact=False, k_top=3)
    ref = genvec_reference(h, summarize, eps=0.0, k_top=3)
    torch.testing.assert_close(fast, ref, rtol=1e-12, atol=1e-12)


def test_fast_maxvec_differs_from_row_max_for_negative_entries() -> None:
    # Row 0 of M = h h^T for h = (-1, 2): (1, -2); its max is 1 = h_0 * min(h), not h_0 * max(h).
    h = torch.tensor([[-1.0, 2.0]], dtype=torch.float64)
    fast = genvec(h, "max", exact=False)
    exact = genvec(h, "max", exact=True)
    assert fast[0, 0].item() == pytest.approx(-2.0)
    assert exact[0, 0].item() == pytest.approx(1.0)
    # with three channels the off-diagonal partner h_0 * min(h) wins over the diagonal
    h3 = torch.tensor([[-1.0, 2.0, -3.0]], dtype=torch.float64)
    assert genvec(h3, "max", eps=0.5, exact=True)[0, 0].item() == pytest.approx(3.0)
    # and the eps on the diagonal wins where it is the largest entry of the row
    h4 = torch.tensor([[0.1, -0.2]], dtype=torch.float64)
    assert genvec(h4, "max", eps=0.5, exact=True)[0, 0].item() == pytest.approx(0.01 + 0.5)


def test_exact_ignores_eps_only_where_documented() -> None:
    h = _mixed(8, 4, seed=1)
    for name in ("mean", "diag"):
        delta = genvec(h, name, eps=0.3) - genvec(h, name, eps=0.0)
        expected = 0.3 / 4 if name == "mean" else 0.3
        torch.testing.assert_close(delta, torch.full_like(h, expected))
        torch.testing.assert_close(
            genvec(h, name, eps=0.3, exact=False), genvec(h, name, eps=0.0, exact=False)
        )


def test_ineq_ordering_on_probabilities() -> None:
    """Eq. ineq: p_i mean <= p_i mean(topk) <= p_i max <= p_i upper <= p_i on [0, 1]."""
    p = torch.rand(500, 6, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    mean = genvec(p, "mean")
    topk = genvec(p, "topk", k_top=3)
    mx = genvec(p, "max")
    upper = genvec(p, "upper")
    tol = 1e-12
    assert (mean <= topk + tol).all()
    assert (topk <= mx + tol).all()
    assert (mx <= upper + tol).all()
    assert (upper <= p + tol).all()
    # strict somewhere: the bounds are not all equal
    assert (upper - mx).max() > 1e-3 and (mx - mean).max() > 1e-3


def test_leading_dims_are_flattened_and_restored() -> None:
    h = _mixed(24, 5, seed=2).reshape(2, 3, 4, 5)
    out = genvec(h, "max", eps=1e-3)
    assert out.shape == h.shape
    torch.testing.assert_close(out.reshape(-1, 5), genvec(h.reshape(-1, 5), "max", eps=1e-3))


@pytest.mark.parametrize("summarize", ["max", "mean", "diag", "topk", "upper"])
def test_gradcheck(summarize: str) -> None:
    h = _mixed(6, 4, seed=4).requires_grad_()
    assert torch.autograd.gradcheck(lambda t: genvec(t, summarize, eps=1e-3, k_top=2), (h,))


def test_summarizer_names() -> None:
    assert set(SUMMARIZERS) == {"max", "mean", "diag", "topk", "upper"}
    assert canonical_summarizer("MaxVec") == "max"
    assert canonical_summarizer("top-k-vec") == "topk"
    with pytest.raises(ValueError):
        canonical_summarizer("median")
    with pytest.raises(ValueError):
        genvec(_mixed(2, 3, 0), "topk", k_top=4)


@pytest.mark.parametrize("k", (1, 2, 4, 6))
def test_exact_equals_reference_with_ties_and_zeros(k: int) -> None:
    """Small integers: many equal channels and exact zeros (the sign-branch boundary)."""
    gen = torch.Generator().manual_seed(k)
    h = torch.randint(-2, 3, (400, k), generator=gen).double()
    for eps in (0.0, 1.0):
        for name in ("max", "mean", "diag"):
            torch.testing.assert_close(
                genvec(h, name, eps=eps), genvec_reference(h, name, eps=eps)
            )
        for k_top in range(1, k + 1):
            torch.testing.assert_close(
                genvec(h, "topk", eps=eps, k_top=k_top),
                genvec_reference(h, "topk", eps=eps, k_top=k_top),
            )

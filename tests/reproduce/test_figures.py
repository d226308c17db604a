"""Fig. ``pools``: the surfaces are the paper's operators (the verb: tests/cli/test_figures.py)."""

from __future__ import annotations

import numpy as np
import pytest

import gfbgcn.reproduce.figures as figures


def test_surfaces_match_the_paper_formulas() -> None:
    p1, p2, surf = figures.pooling_surfaces(11)
    assert list(surf) == ["MeanVec", "MaxVec", "UpperVec", "Linear"]
    np.testing.assert_allclose(surf["MeanVec"], p1 * (p1 + p2) / 2, atol=1e-12)
    np.testing.assert_allclose(surf["MaxVec"], p1 * np.maximum(p1, p2), atol=1e-12)
    np.testing.assert_allclose(surf["UpperVec"], p1 * (1 - (1 - p1) * (1 - p2)), atol=1e-12)
    np.testing.assert_allclose(surf["Linear"], p1)
    # p1 varies along columns, p2 along rows; corners of the analysis section:
    assert p1[0, -1] == 1.0 and p2[0, -1] == 0.0
    assert surf["MeanVec"][0, -1] == pytest.approx(0.5)  # p1 -> 1, p2 -> 0: drops to 0.5
    assert surf["MaxVec"][0, -1] == pytest.approx(1.0)  # MaxVec keeps the confidence
    # Eq. ineq ordering over the whole grid
    tol = 1e-12
    assert (surf["MeanVec"] <= surf["MaxVec"] + tol).all()
    assert (surf["MaxVec"] <= surf["UpperVec"] + tol).all()
    assert (surf["UpperVec"] <= surf["Linear"] + tol).all()


def test_surfaces_are_computed_through_genvec(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    inner = figures.genvec

    def spy(h, summarize, **kwargs):
        calls.append(summarize)
        return inner(h, summarize, **kwargs)

    monkeypatch.setattr(figures, "genvec", spy)
    figures.pooling_surfaces(5)
    assert calls == ["mean", "max", "upper"]

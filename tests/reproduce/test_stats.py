"""mean ± std of repeated runs and its display."""

from __future__ import annotations

import math

import pytest

from gfbgcn.reproduce.stats import format_mean_std, mean_std


def test_mean_std_sample_and_population() -> None:
    values = [1.0, 2.0, 4.0]  # mean 7/3; squared deviations 16/9, 1/9, 25/9 (sum 42/9)
    assert mean_std(values) == pytest.approx((7 / 3, math.sqrt(42 / 9 / 2)))
    assert mean_std(values, ddof=1) == mean_std(values)
    assert mean_std(values, ddof=0) == pytest.approx((7 / 3, math.sqrt(42 / 9 / 3)))
    assert mean_std([5.0]) == (5.0, 0.0)
    assert mean_std([5.0], ddof=0) == (5.0, 0.0)
    mean, std = mean_std([])
    assert math.isnan(mean) and math.isnan(std)


@pytest.mark.parametrize("ddof", [0, 1])
def test_mean_std_of_non_finite_values_is_nan_not_an_error(ddof: int) -> None:
    """A diverged run records a NaN or infinite loss; its summary is NaN, not a crash."""
    mean, std = mean_std([math.nan, 0.5], ddof=ddof)
    assert math.isnan(mean) and math.isnan(std)
    mean, std = mean_std([math.inf, 0.5], ddof=ddof)
    assert mean == math.inf and math.isnan(std)


def test_format_mean_std() -> None:
    assert format_mean_std(0.91234, 0.01, 10) == "0.9123 ± 0.0100 (10)"
    assert format_mean_std(0.91234, 0.01) == "0.9123 ± 0.0100"
    assert format_mean_std(97.2222, 1.5, digits=2) == "97.22 ± 1.50"
    assert format_mean_std(0.5, 0.0, 1) == "0.5000 (1)"  # one run shows no spread
    assert format_mean_std(math.nan, math.nan, 0) == "–"
    assert format_mean_std(*mean_std([]), missing="n/a") == "n/a"

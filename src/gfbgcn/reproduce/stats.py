"""Summaries of repeated runs: mean and standard deviation, and their display."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence


def mean_std(values: Sequence[float], ddof: int = 1) -> tuple[float, float]:
    """``(mean, std)``; sample std (``ddof=1``) by default, 0 for one value, NaNs for none.

    ``ddof=0`` gives the population std (the graph-classification table's convention).
    """
    if not values:
        return math.nan, math.nan
    if not all(math.isfinite(v) for v in values):  # e.g. a diverged run's loss; the statistics
        return statistics.fmean(values), math.nan  # module raises AttributeError on these
    if ddof == 0:
        return statistics.fmean(values), statistics.pstdev(values)
    return statistics.fmean(values), (statistics.stdev(values) if len(values) > 1 else 0.0)


def format_mean_std(mean: float, std: float, n: int | None = None, digits: int = 4,
                    missing: str = "–") -> str:
    """``"m ± s (n)"``; one run shows no spread, NaN shows ``missing``."""
    if math.isnan(mean):
        return missing
    text = f"{mean:.{digits}f}" if n == 1 else f"{mean:.{digits}f} ± {std:.{digits}f}"
    return f"{text} ({n})" if n is not None else text

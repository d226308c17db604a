"""The validation rule shared by the single- and multi-label baselines: the highest score,
ties to the lower loss, then the earlier grid point; the grid evaluated over two cores (forked
liblinear fits) gives the serial results."""

from __future__ import annotations

import os
import sys
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from gfbgcn.text.linear.grid import (
    LIBLINEAR_KINDS,
    GridPoint,
    best_on_validation,
    evaluate_grid,
    fit_point,
    grid,
)


def test_best_on_validation_breaks_ties_by_loss_then_order():
    points = [GridPoint("svm", "C", c) for c in (0.1, 0.3, 1.0, 3.0)]
    scored = {0.1: (0.8, 0.5), 0.3: (0.9, 0.4), 1.0: (0.9, 0.3), 3.0: (0.9, 0.3)}

    def evaluate(point: GridPoint):
        score, loss = scored[point.value]
        return score, loss, {"val_accuracy": score}, f"kept {point.value}"

    point, kept, rows = best_on_validation(points, evaluate)
    assert point.value == 1.0 and kept == "kept 1.0"  # 0.3 loses on loss, 3.0 on order
    assert rows == [{"kind": "svm", "C": c, "val_accuracy": scored[c][0]} for c in scored]


def _toy_problem(seed: int = 0):
    rng = np.random.default_rng(seed)
    x = sp.random(300, 400, density=0.05, random_state=seed, format="csr")
    y = rng.integers(0, 3, size=300)
    x = x + sp.csr_matrix((np.ones(300), (np.arange(300), y * 7)), shape=(300, 400))
    return x.tocsr(), y


def test_evaluate_grid_over_two_cores_equals_one_thread_in_order():
    x, y = _toy_problem()
    points = grid(False, 3)
    assert {p.kind for p in points} == {"svm", "sgd", "cnb"}

    def evaluate(point: GridPoint):
        return fit_point(x, y, 3, point, 0, None)

    filters = list(warnings.filters)
    serial = evaluate_grid(points, evaluate, threads=1)
    threaded = evaluate_grid(points, evaluate, threads=2)
    assert warnings.filters == filters  # the threads' catch_warnings left the caller's filters
    assert len(threaded) == len(points)
    for (c1, b1), (c2, b2) in zip(serial, threaded):
        np.testing.assert_array_equal(c1, c2)
        np.testing.assert_array_equal(b1, b2)


@pytest.mark.skipif(sys.platform == "win32", reason="fork only")
def test_evaluate_grid_fits_liblinear_kinds_in_forked_processes_beside_the_others():
    points = grid(False, 3)

    def evaluate(point: GridPoint):
        return point.value, os.getpid()

    out = evaluate_grid(points, evaluate, threads=2)
    assert [v for v, _ in out] == [p.value for p in points]  # in the points' order
    me = os.getpid()
    lib = {pid for (_, pid), p in zip(out, points) if p.kind in LIBLINEAR_KINDS}
    assert me not in lib and 1 <= len(lib) <= 2  # at most two worker processes
    assert all(pid == me for (_, pid), p in zip(out, points) if p.kind not in LIBLINEAR_KINDS)
    # one thread: everything in this process, in order
    assert evaluate_grid(points, evaluate, threads=1) == [(p.value, me) for p in points]


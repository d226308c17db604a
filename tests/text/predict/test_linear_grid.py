"""The validation rule shared by the single- and multi-label baselines: the highest score,
ties to the lower loss, then the earlier grid point; the grid evaluated in two threads gives
the serial results."""

from __future__ import annotations

import threading
import time
import warnings

import numpy as np
import scipy.sparse as sp

from gfbgcn.text.predict.linear_grid import (
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


def test_evaluate_grid_in_two_threads_equals_one_thread_in_order():
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


def test_evaluate_grid_keeps_liblinear_fits_in_one_thread(monkeypatch):
    points = grid(False, 3)
    running: list[str] = []
    overlaps: list[tuple[str, ...]] = []
    lock = threading.Lock()

    def evaluate(point: GridPoint):
        with lock:
            running.append(point.kind)
            overlaps.append(tuple(running))
        time.sleep(0.01)
        with lock:
            running.remove(point.kind)
        return point.value

    assert evaluate_grid(points, evaluate, threads=2) == [p.value for p in points]
    assert not any(o.count("svm") > 1 for o in overlaps)  # never two liblinear fits at once
    assert any(len(o) == 2 for o in overlaps)  # but the chains did overlap

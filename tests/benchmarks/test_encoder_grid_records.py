"""``benchmarks/encoder_grid_records.py``: every grid point fitted on the training rows and
scored on the validation rows, and the check that a re-choice reproduces a record."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from tests.benchmarks._load import load_script


def _rows(seed: int = 0):
    rng = np.random.default_rng(seed)
    y = np.array([0, 1, 2] * 20)
    x = rng.normal(size=(60, 5)) + 2.0 * np.eye(3, 5)[y]  # classes apart on 3 columns
    return sp.csr_matrix(x), y


def test_each_point_is_fitted_on_the_training_rows_and_scored_on_the_others(monkeypatch):
    grid = load_script("encoder_grid_records", monkeypatch)
    from gfbgcn.text.linear.baseline import linear_scores
    from gfbgcn.text.linear.encoder import head_grid
    from gfbgcn.text.linear.grid import fit_point

    x, y = _rows()
    points = head_grid()[:2]
    scores = grid.point_scores(lambda p: x, points, y, 3, 40, seed=0)
    assert scores.shape == (2, 20, 3)
    for k, point in enumerate(points):
        coef, intercept = fit_point(x[:40], y[:40], 3, point, 0, None)
        np.testing.assert_allclose(scores[k], linear_scores(x[40:], coef, intercept))
    # a point that sees the validation rows scores differently: they were held out
    coef, intercept = fit_point(x, y, 3, points[0], 0, None)
    assert not np.allclose(scores[0], linear_scores(x[40:], coef, intercept))


def test_the_check_finds_the_recorded_choice_and_measures_a_different_one(monkeypatch):
    grid = load_script("encoder_grid_records", monkeypatch)
    study = load_script("selection_study", monkeypatch)
    y = np.array([0, 1] * 10)
    good = np.where(np.eye(2)[y] > 0, 2.0, 0.0)
    scores = np.stack([-good, good])  # point 1 is right everywhere
    point, t = study.choose_point(scores, y)
    recorded = study.point_proba(scores, point, t)
    assert grid.rechosen_diff(scores, y, recorded) == (1, t, 0.0)
    assert grid.rechosen_diff(scores, y, np.full_like(recorded, 0.5))[2] > 0.3

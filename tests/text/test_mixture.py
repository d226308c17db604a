"""The weight of two classifiers' mixture, chosen by validation log-loss."""

from __future__ import annotations

import numpy as np
import pytest

from gfbgcn.text.mixture import WEIGHT_GRID, choose_weight, mix


def test_the_grid_runs_from_one_part_to_the_other():
    assert WEIGHT_GRID[0] == 0.0 and WEIGHT_GRID[-1] == 1.0 and len(WEIGHT_GRID) == 21
    a, b = np.array([[0.9, 0.1]]), np.array([[0.2, 0.8]])
    np.testing.assert_array_equal(mix(a, b, 1.0), a)
    np.testing.assert_array_equal(mix(a, b, 0.0), b)


def test_no_validation_document_gives_the_middle_weight():
    w, acc, loss = choose_weight(np.zeros((0, 2)), np.zeros((0, 2)), np.zeros(0, int))
    assert w == 0.5 and acc == 0.0 and np.isnan(loss)


def test_choose_weight_uses_validation_and_covers_both_ends():
    y = np.array([0, 1, 1, 0])
    good = np.eye(2)[y] * 0.8 + 0.1
    bad = np.eye(2)[1 - y] * 0.8 + 0.1
    assert choose_weight(good, bad, y)[0] == 1.0 and choose_weight(bad, good, y)[0] == 0.0
    w, acc, loss = choose_weight(good, good, y)
    assert acc == 1.0 and np.allclose(mix(good, good, w), good)
    assert loss == pytest.approx(-np.log(0.9))  # the loss at the chosen weight


def test_choose_weight_minimises_validation_log_loss_not_accuracy():
    # Both parts are right on every document, so every weight has accuracy 1: only the
    # log-loss separates them, and it is lowest when all weight is on the confident part.
    y = np.array([0, 1, 0, 1, 1])
    confident = np.eye(2)[y] * 0.9 + 0.05
    hesitant = np.eye(2)[y] * 0.2 + 0.4
    assert choose_weight(confident, hesitant, y)[:2] == (1.0, 1.0)
    assert choose_weight(hesitant, confident, y)[:2] == (0.0, 1.0)
    # An interior optimum: two parts wrong on different documents.
    a = np.array([[0.9, 0.1], [0.6, 0.4], [0.9, 0.1], [0.1, 0.9]])
    b = np.array([[0.4, 0.6], [0.1, 0.9], [0.9, 0.1], [0.1, 0.9]])
    y = np.array([0, 1, 0, 1])
    w, _, _ = choose_weight(a, b, y)
    grid = np.linspace(0, 1, 1001)
    losses = [-np.mean(np.log((g * a + (1 - g) * b)[np.arange(4), y])) for g in grid]
    assert 0.0 < w < 1.0 and abs(w - grid[int(np.argmin(losses))]) <= 0.05
    # Where the two criteria disagree the log-loss decides: any weight in about (0.19, 0.9)
    # classifies both documents right, but the log-loss keeps falling up to w = 1, where the
    # graph part's barely-wrong second document costs less than its confident first one gains.
    graph = np.array([[0.99, 0.01], [0.51, 0.49]])
    linear = np.array([[0.4, 0.6], [0.4, 0.6]])
    assert choose_weight(graph, linear, np.array([0, 1]))[:2] == (1.0, 0.5)

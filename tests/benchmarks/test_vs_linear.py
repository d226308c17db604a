"""``benchmarks/vs_linear.py``'s validation split: the issue's stratified 10 % split, with a
class of one training document kept out of validation (R52 has one)."""

from __future__ import annotations

import numpy as np
from sklearn.model_selection import train_test_split

from tests.benchmarks._load import load_script


def _vs_linear():
    return load_script("vs_linear")


def test_validation_split_is_train_test_split_without_singleton_classes():
    y = np.repeat(np.arange(4), [30, 20, 40, 10])
    train = np.arange(0, 100, 1)[::-1].copy()  # any order of document indices
    fit, val = _vs_linear().validation_split(train, y, seed=3)
    want_fit, want_val = train_test_split(train, test_size=0.1, stratify=y[train],
                                          random_state=3)
    np.testing.assert_array_equal(fit, want_fit)
    np.testing.assert_array_equal(val, want_val)


def test_validation_split_keeps_a_singleton_class_in_the_fitting_part():
    y = np.concatenate([np.repeat([0, 1], 50), [2]])  # class 2: one document (index 100)
    train = np.arange(101)
    fit, val = _vs_linear().validation_split(train, y, seed=0)
    assert 100 in fit and 100 not in val
    assert sorted(np.concatenate([fit, val]).tolist()) == train.tolist()  # a partition
    assert len(val) == 10 and set(np.bincount(y[val], minlength=3)[:2]) == {5}

"""The early-stopping validation split: at random, or stratified by class
(``gfbgcn.text.corpus.splits``)."""

from __future__ import annotations

import numpy as np
import pytest

from gfbgcn.text.corpus.splits import class_quotas, validation_docs


def test_the_random_split_is_the_draw_of_every_earlier_run():
    train = np.flatnonzero(np.arange(50) % 7 != 0)
    for seed in range(3):
        before = np.random.default_rng(seed).choice(train, size=round(0.1 * len(train)),
                                                    replace=False)
        np.testing.assert_array_equal(
            validation_docs(train, np.zeros(50, int), 0.1, seed), before)


@pytest.mark.parametrize(("counts", "ratio", "expected"), [
    ([50, 30, 20], 0.1, [5, 3, 2]),  # proportions, exactly
    ([90, 3, 3, 4], 0.1, [7, 1, 1, 1]),  # ... and one for each small class, from the large
    ([57, 2, 1], 0.1, [5, 1, 0]),  # a class of one keeps its document for training
    ([2] * 5, 0.1, [1] * 5),  # the minimum forces more than round(0.1 * 10) = 1
    ([4, 4], 0.5, [2, 2]),
    ([3, 3], 0.9, [2, 2]),  # each class keeps a training document
])
def test_class_quotas_keep_proportions_within_their_bounds(counts, ratio, expected):
    quota = class_quotas(np.array(counts), ratio, round(ratio * sum(counts)),
                         np.random.default_rng(0))
    assert quota.tolist() == expected


def test_class_quotas_follow_the_shares_and_break_ties_by_the_seed():
    counts = np.array([35, 25, 25, 15])  # shares 3.5, 2.5, 2.5, 1.5 of 10
    quotas = {tuple(class_quotas(counts, 0.1, 10, np.random.default_rng(s)))
              for s in range(20)}
    assert all(sum(q) == 10 and all(3 >= v - s for v, s in zip(q, (3, 2, 2, 1))) for q in quotas)
    assert len(quotas) > 1  # the seed decides who gets the remainders


def test_the_stratified_split_gives_every_class_of_two_a_validation_document():
    labels = np.r_[np.zeros(57, int), np.ones(3, int), 2 * np.ones(2, int), 3]  # 63 docs
    train = np.arange(63)
    for seed in range(10):
        val = validation_docs(train, labels, 0.1, seed, stratified=True)
        assert len(val) == 6 and len(np.unique(val)) == 6
        assert set(labels[val]) == {0, 1, 2}  # the class of one document keeps it
        np.testing.assert_array_equal(val, validation_docs(train, labels, 0.1, seed, True))
    random = [set(labels[validation_docs(train, labels, 0.1, s)]) for s in range(10)]
    assert any(not {1, 2} <= classes for classes in random)  # what stratifying is for


def test_only_training_documents_are_drawn():
    labels = np.arange(40) % 4
    train = np.flatnonzero(np.arange(40) < 30)
    val = validation_docs(train, labels, 0.2, 0, stratified=True)
    assert set(val) <= set(train) and len(val) == 6

"""The documents' loss weights: ``class_weight`` and ``sample_weight``
(``gfbgcn.text.corpus.weights``)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.utils.class_weight import compute_class_weight

from gfbgcn.core.errors import OptionError, UserError
from gfbgcn.text.corpus.weights import (
    check_class_weight,
    check_known_classes,
    class_weights,
    document_weights,
    folded_weights,
    label_weights,
    weighted_prior,
)

LABELS = np.array([0, 0, 0, 1, 2, 2, 0, 1])  # the last two are test documents
NAMES = ["a", "b", "c"]
TRAIN = np.arange(8) < 6


def test_balanced_is_scikit_learns_over_the_training_documents():
    expected = compute_class_weight("balanced", classes=np.arange(3), y=LABELS[TRAIN])
    np.testing.assert_allclose(class_weights(LABELS, NAMES, "balanced", TRAIN), expected)
    # a class without a training document weighs 1 (it is in no training loss)
    np.testing.assert_allclose(class_weights(LABELS, NAMES, "balanced", LABELS != 1),
                               [6 / (2 * 4), 1.0, 6 / (2 * 2)])


def test_a_dict_weighs_the_classes_it_names_and_the_others_one():
    assert class_weights(LABELS, NAMES, {"b": 3.0}, TRAIN).tolist() == [1.0, 3.0, 1.0]
    assert class_weights(LABELS, NAMES, None, TRAIN).tolist() == [1.0, 1.0, 1.0]


def test_document_weights_multiply_class_and_sample_weights():
    sample = np.array([1.0, 2.0, 0.0, 1.0, 1.0, 3.0, 1.0, 1.0])
    w = document_weights(LABELS, NAMES, {"c": 2.0}, sample, TRAIN)
    assert w.dtype == np.float32 and w.tolist() == [1, 2, 0, 1, 2, 6, 1, 1]
    # no weighting, or the same weight everywhere: None (the plain mean, bit for bit)
    assert document_weights(LABELS, NAMES, None, None, TRAIN) is None
    assert document_weights(LABELS, NAMES, None, np.full(8, 3.0), TRAIN) is None
    assert document_weights(LABELS, NAMES, {"a": 2, "b": 2, "c": 2}, None, TRAIN) is None


def test_multi_label_balanced_weighs_each_labels_positives_against_its_negatives():
    targets = np.array([[1, 0, 1], [0, 0, 1], [0, 1, 1], [0, 0, 1]], dtype=np.float32)
    train = np.ones(4, bool)
    w = label_weights(targets, "balanced", train)
    # label 0: 1 positive of 4 -> 4/2 and 4/6; label 1 likewise; label 2 all positive -> 1
    np.testing.assert_allclose(w[:, 0], [2.0, 2 / 3, 2 / 3, 2 / 3])
    np.testing.assert_allclose(w[:, 2], 1.0)
    # each label's positives and negatives then weigh the same in total
    assert (w[:, 0] * targets[:, 0]).sum() == pytest.approx((w[:, 0] * (1 - targets[:, 0])).sum())
    doc = document_weights(np.zeros(4, int), ["x"], "balanced", np.array([1, 1, 2, 1.0]),
                           train, targets)
    np.testing.assert_allclose(doc[2], [2 * 2 / 3, 2 * 2.0, 2.0])


def test_folded_weights_keep_a_name_and_turn_a_dict_into_document_weights():
    assert folded_weights(LABELS, NAMES, "balanced", None) == ("balanced", None)
    named, weights = folded_weights(LABELS, NAMES, {"a": 2.0}, np.full(8, 0.5))
    assert named is None and weights.tolist() == [1, 1, 1, 0.5, 0.5, 0.5, 1, 0.5]


def test_the_weighted_prior_is_what_the_weighted_loss_sees():
    assert weighted_prior(LABELS, NAMES, None, None, TRAIN) is None
    np.testing.assert_allclose(weighted_prior(LABELS, NAMES, "balanced", None, TRAIN),
                               [1 / 3] * 3)
    sample = np.array([1, 1, 1, 3, 1, 1, 0, 0.0])
    np.testing.assert_allclose(weighted_prior(LABELS, NAMES, None, sample, TRAIN),
                               [3 / 8, 3 / 8, 2 / 8])
    targets = np.array([[1, 0], [0, 0], [0, 1], [0, 1]], dtype=np.float32)
    np.testing.assert_allclose(weighted_prior(np.zeros(4, int), ["x"], "balanced", None,
                                              np.ones(4, bool), targets), [0.5, 0.5])


@pytest.mark.parametrize(("value", "multi", "message"), [
    ("inverse", False, "^class_weight must be one of balanced or a dict"),
    ({"a": -1}, False, r"^class_weight\['a'\] must be a finite number >= 0, got -1$"),
    ({"a": float("nan")}, False, r"^class_weight\['a'\] must be a finite number"),
    ({"a": True}, False, r"^class_weight\['a'\] must be a finite number"),
    ({"a": 0, "b": 0.0}, False, "^class_weight weighs every class it names 0$"),
    ({"a": 2}, True, "^class_weight as a dict is single-label: with multi_label, give "
                     "'balanced' or sample_weight$"),
])
def test_bad_class_weights_are_one_line(value, multi, message):
    with pytest.raises(OptionError, match=message):
        check_class_weight(value, multi)


def test_a_dicts_keys_become_label_names_and_unknown_ones_are_refused():
    assert check_class_weight({2: 1, np.int64(7): 2.5}) == {"2": 1.0, "7": 2.5}
    assert check_class_weight("balanced") == "balanced" and check_class_weight(None) is None
    check_known_classes({"a": 2.0}, NAMES)
    with pytest.raises(UserError, match=r"^class_weight names 1 class\(es\) that y does not "
                                        r"hold \('d'\); the classes are 'a', 'b', 'c'$"):
        check_known_classes({"d": 2.0, "a": 1.0}, NAMES)

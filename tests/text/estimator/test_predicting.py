"""The predicting side of ``TextGCNClassifier`` (``gfbgcn.text.estimator.predicting``): the
fitted documents by their node outputs, other documents inductively, float64 probabilities."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.metrics import log_loss

from gfbgcn import TextGCNClassifier
from gfbgcn.core.errors import OptionError, UserError
from tests.text.estimator.toyfit import FAST, UNSEEN, toy_split
from tests.text.toydata import NEW_DOCS


def test_probabilities_sum_to_one_in_float64(transductive_fit):
    clf, x, y, unlabeled = transductive_fit
    proba = clf.predict_proba(x + unlabeled + NEW_DOCS)
    assert proba.dtype == np.float64
    assert np.abs(proba.sum(1) - 1).max() <= 4 * np.finfo(np.float64).eps
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "y_pred values do not sum to one" would fail here
        log_loss(y, clf.predict_proba(x), labels=clf.classes_)


def test_fitted_documents_get_their_node_outputs(transductive_fit):
    clf, x, _, unlabeled = transductive_fit
    nodes = clf.result_.probabilities  # [num_docs, C]: x first, then X_unlabeled
    np.testing.assert_allclose(clf.predict_proba(unlabeled), nodes[len(x):], rtol=1e-6)
    np.testing.assert_allclose(clf.predict_proba(x[:3]), nodes[:3], rtol=1e-6)
    inductive = clf.predictor_.predict_proba(unlabeled)
    assert not np.allclose(inductive, nodes[len(x):], atol=1e-4)  # a different computation


def test_other_documents_are_classified_inductively(transductive_fit):
    clf = transductive_fit[0]
    # to float32 rounding: predict_proba renormalises the float32 softmax rows in float64
    np.testing.assert_allclose(clf.predict_proba(NEW_DOCS), clf.predictor_.predict_proba(NEW_DOCS),
                               rtol=1e-6)


def test_without_unlabeled_documents_new_ones_are_inductive():
    x, y, unlabeled = toy_split()
    clf = TextGCNClassifier(**FAST).fit(x, y)
    assert clf.graph_.num_docs == len(x)
    np.testing.assert_allclose(clf.predict_proba(unlabeled),
                               clf.predictor_.predict_proba(unlabeled))


def test_a_whole_model_predicts_its_fitted_documents_only():
    x, y, unlabeled = toy_split()
    clf = TextGCNClassifier(**{**FAST, "model": "sgc"}).fit(x, y, X_unlabeled=unlabeled)
    assert clf.predict(unlabeled).shape == (len(unlabeled),)
    with pytest.raises(UserError, match="sgc classifies only the documents given to fit"):
        clf.predict(UNSEEN)
    with pytest.raises(OptionError, match="^save supports the two-layer models only"):
        clf.save("never-written")


def test_predict_names_a_bad_document(transductive_fit):
    with pytest.raises(UserError, match=r"X\[1\] is bytes"):
        transductive_fit[0].predict(["goal", b"bank"])

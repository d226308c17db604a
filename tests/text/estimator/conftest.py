"""Fixtures of the estimator's tests: a classifier fitted with ``X_unlabeled``, and topics."""

from __future__ import annotations

import pytest

from gfbgcn import TextGCNClassifier
from tests.text.estimator.toyfit import FAST, toy_split
from tests.text.toydata import topic_documents


@pytest.fixture(scope="module")
def transductive_fit():
    """``(classifier fitted with X_unlabeled, X, y, X_unlabeled)`` on the toy corpus."""
    x, y, unlabeled = toy_split()
    return TextGCNClassifier(**FAST).fit(x, y, X_unlabeled=unlabeled), x, y, unlabeled


@pytest.fixture(scope="module")
def topics():
    """``(texts, labels)`` of 30 topic documents (a corpus a classifier can learn)."""
    return topic_documents(30)

"""Inputs whose order is undefined are refused in one line: documents and labels are paired by
position, and a set's (or a dict view's) iteration order is arbitrary."""

from __future__ import annotations

import pytest

from gfbgcn import TextGCNClassifier
from gfbgcn.core.errors import InputError
from tests.text.search.test_own_corpus import tiny_corpus

CORPUS = tiny_corpus(24)


@pytest.mark.parametrize("unordered", [set, frozenset, lambda x: dict.fromkeys(x).keys(),
                                       lambda x: dict(enumerate(x)).values(), dict.fromkeys])
def test_unordered_documents_are_refused(unordered):
    with pytest.raises(InputError, match=r"^X is a \w+, whose order is arbitrary"):
        TextGCNClassifier(epochs=1).fit(unordered(CORPUS.texts), CORPUS.labels)


@pytest.mark.parametrize("unordered", [set, frozenset])
def test_unordered_labels_are_refused(unordered):
    with pytest.raises(InputError, match=r"^y is a \w+, whose order is arbitrary"):
        TextGCNClassifier(epochs=1).fit(CORPUS.texts, unordered(CORPUS.labels))


def test_unordered_documents_to_classify_are_refused():
    clf = TextGCNClassifier(epochs=2, hidden=4, min_freq=1, device="cpu").fit(
        CORPUS.texts, CORPUS.labels)
    with pytest.raises(InputError, match=r"^X is a set, whose order is arbitrary"):
        clf.predict(set(CORPUS.texts[:3]))
    # a generator is read once, in its order: accepted
    assert len(clf.predict(t for t in CORPUS.texts[:3])) == 3

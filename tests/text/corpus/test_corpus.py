import numpy as np
import pytest

from gfbgcn.core.errors import CorpusFormatError
from gfbgcn.text.corpus.corpus import Corpus


def _corpus() -> Corpus:
    return Corpus("toy", ["a b", "c", "d e f"], ["y", "x", "y"], [True, False, True])


def test_label_names_are_sorted_and_ids_follow_them() -> None:
    corpus = _corpus()
    assert corpus.label_names == ["x", "y"]
    assert corpus.label_ids().tolist() == [1, 0, 1]
    assert corpus.is_train.dtype == np.bool_ and len(corpus) == 3


def test_subset_keeps_the_given_order() -> None:
    sub = _corpus().subset([2, 0])
    assert sub.texts == ["d e f", "a b"] and sub.labels == ["y", "y"]
    assert sub.is_train.tolist() == [True, True]


def test_empty_or_ragged_corpora_are_refused() -> None:
    with pytest.raises(CorpusFormatError, match="empty"):
        Corpus("none", [], [], [])
    with pytest.raises(ValueError, match="same length"):
        Corpus("ragged", ["a"], ["x", "y"], [True])


def test_data_module_still_exports_the_corpus() -> None:
    from gfbgcn.text.corpus import benchmarks as data

    assert data.Corpus is Corpus and data.CorpusFormatError is CorpusFormatError


def test_unlabelled_documents_are_test_documents_and_subsets_keep_them() -> None:
    corpus = Corpus("u", ["a", "b", "c"], ["x", "y", "x"], [True, False, False],
                    unlabeled=[False, False, True])
    assert corpus.subset([2, 0]).unlabeled.tolist() == [True, False]
    with pytest.raises(ValueError, match="unlabeled must flag test documents"):
        Corpus("u", ["a", "b"], ["x", "y"], [True, False], unlabeled=[True, False])
    with pytest.raises(ValueError, match="one flag per document"):
        Corpus("u", ["a", "b"], ["x", "y"], [True, False], unlabeled=[False])

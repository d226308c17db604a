"""scikit-learn's own estimator checks (``parametrize_with_checks``) on ``TextGCNClassifier``.

The checks feed numeric matrices; a text classifier takes documents.  :class:`NumericTextGCN`,
a thin adapter used only here, writes each row of ``X`` as one document of tokens ``f<j>v<k>``
(feature ``j`` fell in the unit bin ``k``) and hands it to ``TextGCNClassifier`` unchanged
otherwise: ``y``, the fitted state, ``predict``, ``predict_proba``, pickling, cloning and the
parameters are the classifier's own.  What the adapter adds is the numeric input validation
(``validate_data``), so the checks of that (:data:`NOT_APPLICABLE`) would test the adapter,
not the classifier: they are skipped, each with its reason.  The classifier's own checks of its
input (documents that are not strings, lengths, labels) are in ``test_classifier.py``.

Tiny data and a small, short training keep the whole set to well under a minute.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks
from sklearn.utils.validation import validate_data

from gfbgcn import TextGCNClassifier

#: Checks whose subject is numeric-matrix input, which a text classifier does not take: the
#: adapter validates it (scikit-learn's validate_data), so they would test the adapter.
_MATRIX = "numeric-matrix input: the adapter validates it (validate_data), not the classifier"
NOT_APPLICABLE: dict[str, str] = {
    "check_estimators_dtypes": f"float32/int32/int64 matrices; {_MATRIX}",
    "check_dtype_object": f"object-dtype matrices; {_MATRIX}",
    "check_complex_data": f"complex matrices; {_MATRIX}",
    "check_estimators_nan_inf": f"NaN/inf in X; {_MATRIX} (documents have no NaN: a "
                                "non-string document is refused, see test_classifier.py)",
    "check_estimator_sparse_matrix": f"sparse X; {_MATRIX}",
    "check_estimator_sparse_array": f"sparse X; {_MATRIX}",
    "check_estimator_sparse_tag": f"sparse X; {_MATRIX}",
    "check_f_contiguous_array_estimator": f"memory layout of X; {_MATRIX}",
    "check_readonly_memmap_input": f"memory-mapped X; {_MATRIX}",
    "check_fit1d": f"1-d X is a matrix error here, but a list of documents for the "
                   f"classifier; {_MATRIX}",
    "check_fit2d_predict1d": f"the same, at predict; {_MATRIX}",
    "check_fit2d_1feature": f"a one-column matrix; {_MATRIX}",
    "check_n_features_in": "n_features_in_ counts matrix columns; documents have none",
    "check_n_features_in_after_fitting": "n_features_in_ counts matrix columns; documents have "
                                         "none",
    "check_positive_only_tag_during_fit": f"negative matrix values; {_MATRIX}",
    "check_estimators_empty_data_messages": f"0-column matrices; {_MATRIX}",
    "check_array_api_input": "array-API namespaces of numeric arrays; documents are strings",
}


class NumericTextGCN(TextGCNClassifier):
    """``TextGCNClassifier`` on numeric ``X``: row ``i`` becomes the document of the tokens
    ``f<j>v<floor(X[i, j])>``; everything else is the classifier's."""

    def _documents(self, X: Any, reset: bool) -> list[str]:
        X = validate_data(self, X, reset=reset, dtype=np.float64)
        return [" ".join(f"f{j}v{int(np.floor(v))}" for j, v in enumerate(row)) for row in X]

    def fit(self, X: Any, y: Any, sample_weight: Any = None  # type: ignore[override]
            ) -> NumericTextGCN:
        return super().fit(self._documents(X, reset=True), y, sample_weight=sample_weight)

    def predict_proba(self, X: Any) -> np.ndarray:
        # predict (inherited) calls this; not-fitted is said before X is looked at
        if not hasattr(self, "classes_"):
            return super().predict_proba(X)
        return super().predict_proba(self._documents(X, reset=False))

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array, tags.input_tags.string = True, False
        tags.non_deterministic = False  # on the CPU a seed gives the same fit (device below)
        return tags


#: Small and quick; enough epochs for check_classifiers_train's accuracy bar (0.83).
ADAPTER = NumericTextGCN(hidden=8, epochs=20, lr=0.05, min_freq=1, stop_words=None,
                         tokenizer="whitespace", cache=False, build_workers=1, device="cpu")


def test_the_adapter_writes_rows_as_documents():
    docs = NumericTextGCN()._documents(np.array([[0.5, -1.2], [3.0, 2.9]]), reset=True)
    assert docs == ["f0v0 f1v-2", "f0v3 f1v2"]


#: Checks that fail for a reason of the model, not of the code: xfail, each with its reason.
EXPECTED_FAILURES: dict[str, str] = {
    "check_sample_weight_equivalence_on_dense_data":
        "a weight of 2 is not a repeated document here: a repeated document is another node of "
        "the graph (its words' TF-IDF and PMI edges change) and may fall into the validation "
        "split, so the two fits differ by more than the check's tolerance",
}


@parametrize_with_checks([ADAPTER], expected_failed_checks=lambda estimator: EXPECTED_FAILURES)
def test_sklearn_estimator_checks(estimator, check):
    name = getattr(check, "func", check).__name__
    if name in NOT_APPLICABLE:
        pytest.skip(f"does not apply to a text classifier: {NOT_APPLICABLE[name]}")
    check(estimator)



#: The multi-label mode: the same adapter with ``multi_label=True`` (its tags say so).
MULTI_LABEL = NumericTextGCN(hidden=8, epochs=20, lr=0.05, min_freq=1, stop_words=None,
                             tokenizer="whitespace", cache=False, build_workers=1, device="cpu",
                             multi_label=True)
#: scikit-learn's checks of a multi-label classifier (the one of decision_function aside: the
#: classifier has none).  The other checks feed single-label ``y``: they run on ``ADAPTER``.
MULTI_LABEL_CHECKS = ("check_classifiers_multilabel_representation_invariance",
                      "check_classifiers_multilabel_output_format_predict",
                      "check_classifiers_multilabel_output_format_predict_proba")


def test_the_multi_label_mode_says_so_in_its_tags():
    from sklearn.utils import get_tags

    assert get_tags(MULTI_LABEL).classifier_tags.multi_label
    assert not get_tags(ADAPTER).classifier_tags.multi_label


@pytest.mark.parametrize("name", MULTI_LABEL_CHECKS)
def test_sklearn_multi_label_checks(name):
    """An indicator-matrix ``y`` and its list forms give the same predictions, ``predict`` an
    array of ``y``'s shape and dtype, ``predict_proba`` ``[n, L]`` probabilities."""
    from sklearn.base import clone
    from sklearn.utils import estimator_checks

    getattr(estimator_checks, name)("NumericTextGCN", clone(MULTI_LABEL))

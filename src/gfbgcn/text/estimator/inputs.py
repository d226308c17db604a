"""What :meth:`gfbgcn.TextGCNClassifier.fit` is given, checked and turned into a corpus.

``X`` is a list, NumPy array or pandas Series of strings (one document each), ``y`` one class
label per document (strings, integers, ...; as scikit-learn's classifiers take them: a column
vector ``[n, 1]`` is raveled with scikit-learn's ``DataConversionWarning``).  Bad input
is refused in one line (a :class:`~gfbgcn.core.errors.UserError`) before any work.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, SupportsInt, cast

import numpy as np
from numpy.typing import ArrayLike
from sklearn.utils.validation import column_or_1d

from gfbgcn.core.errors import InputError, UserError
from gfbgcn.text.corpus.corpus import Corpus, check_documents, check_ordered
from gfbgcn.text.train.checks import check_classes

#: The name of an in-memory corpus (graph cache files, run records).
CORPUS_NAME = "texts"


def _kind(value: object) -> str:
    if isinstance(value, str):
        return "str"
    if isinstance(value, (bool, np.bool_)):
        return "bool"
    if isinstance(value, numbers.Real):
        return "number"
    return type(value).__name__


def _check_label_values(values: list[object]) -> None:
    """No missing label, one kind of label, no continuous targets."""
    for i, value in enumerate(values):
        if value is None or (isinstance(value, numbers.Real) and value != value):  # NaN
            raise UserError(f"y[{i}] is missing ({value!r}): every document needs a label")
        if isinstance(value, numbers.Real) and not math.isfinite(value):
            raise UserError(f"y[{i}] is {float(value)}: a class label must be a string or a "
                            "finite whole number")
    kinds = sorted({_kind(v) for v in values})
    if len(kinds) > 1:
        raise UserError(f"y mixes label types ({', '.join(kinds)}): give every label as the "
                        "same type")
    # every value is a numbers.Real here (kind "number"), and the real types labels come as
    # (int, float, NumPy scalars) have __int__, which typeshed's numbers.Real does not declare
    if kinds[0] == "number" and any(float(v) != int(cast(SupportsInt, v)) for v in values
                                    if isinstance(v, numbers.Real)):
        raise UserError("y holds continuous values: a classifier needs class labels "
                        "(strings or whole numbers)")
    if kinds[0] not in ("str", "bool", "number"):
        raise UserError(f"y holds {kinds[0]} values: labels must be strings or numbers")


def class_labels(y: Sequence[object] | np.ndarray, num_docs: int
                 ) -> tuple[np.ndarray, list[str]]:
    """``(classes, labels)``: the sorted distinct labels of ``y`` (``classes_``, their own
    type) and each document's label as a string (a graph's label names are strings)."""
    if y is None:  # scikit-learn's wording (its check_requires_y_none looks for it)
        raise UserError("TextGCNClassifier requires y to be passed, but the target y is None: "
                        "give one class label per document")
    check_ordered(y, "y")
    if not isinstance(y, (list, tuple)) and hasattr(y, "__array__"):
        y = np.asarray(y)  # array-likes (pandas, any __array__ type) as NumPy sees them
    # np.shape takes any sequence at run time (it goes through np.asarray); numpy's stubs
    # only accept ArrayLike, which a Sequence[object] is not
    if len(np.shape(cast(ArrayLike, y))) == 2 and np.shape(cast(ArrayLike, y))[1] == 1:
        # a column vector: raveled with scikit-learn's DataConversionWarning, as its
        # classifiers do
        y = column_or_1d(y, warn=True)
    shape = np.shape(cast(ArrayLike, y))
    if len(shape) != 1:
        raise UserError(f"y must hold one label per document (one-dimensional), got shape "
                        f"{shape}; for multi-label data use gfbgcn train --multi-label")
    values = list(y)
    if len(values) != num_docs:
        raise UserError(f"X and y have different lengths: {num_docs} documents, "
                        f"{len(values)} labels")
    if not values:
        raise InputError("X holds no document: nothing to fit")
    _check_label_values(values)
    classes, inverse = np.unique(np.asarray(values), return_inverse=True)
    names = [str(c) for c in classes]
    if len(set(names)) < len(names):
        raise UserError("two labels of y are written the same way; give distinct labels")
    check_classes(names)
    return classes, [names[i] for i in inverse.reshape(-1)]


def check_sample_weight(sample_weight: object, num_docs: int) -> np.ndarray | None:
    """``sample_weight`` (``None``, or one number >= 0 per document: a list, array or Series)
    as a float64 array ``[num_docs]``, a copy (the caller's is never written); refused in one
    line otherwise (a :class:`UserError`): another length or shape, a weight that is negative,
    NaN or infinite, or every weight zero (nothing to learn from)."""
    if sample_weight is None:
        return None
    check_ordered(sample_weight, "sample_weight")
    try:
        weights = np.array(sample_weight, dtype=np.float64)  # a copy
    except (TypeError, ValueError):
        raise UserError("sample_weight must hold one number per document") from None
    if weights.ndim != 1 or len(weights) != num_docs:
        raise UserError(f"sample_weight must hold one weight per document of X: shape "
                        f"({num_docs},), got {weights.shape}")
    bad = np.flatnonzero(~np.isfinite(weights) | (weights < 0))
    if len(bad):
        raise UserError(f"sample_weight[{bad[0]}] is {weights[bad[0]]}: a weight must be a "
                        "finite number >= 0")
    if not weights.any():
        raise UserError("sample_weight is zero for every document: there is nothing to learn "
                        "from")
    return weights


def labelled_corpus(texts: list[str], labels: list[str], unlabeled: list[str]) -> Corpus:
    """A corpus of the labelled documents (its training split) and the unlabeled ones (its
    test split, nodes of the graph whose labels are never read, flagged ``unlabeled``).

    The unlabeled documents carry the first class as a placeholder label, so the label names
    are those of ``labels``; no metric reads it (test metrics score labelled test documents
    only: such a run has none, and its ``result_.test`` is ``None``).
    """
    placeholder = min(labels)
    flags = np.r_[np.ones(len(texts), dtype=bool), np.zeros(len(unlabeled), dtype=bool)]
    return Corpus(CORPUS_NAME, texts + unlabeled, labels + [placeholder] * len(unlabeled), flags,
                  unlabeled=~flags)
    return Corpus(CORPUS_NAME, texts + unlabeled, labels + [placeholder] * len(unlabeled), flags)


@dataclass(frozen=True)
class FitInputs:
    """What ``fit(X, y, X_unlabeled)`` is given, as a corpus: ``corpus`` (the labelled
    documents as its training split, the unlabeled ones as its test split: see
    :func:`labelled_corpus`), ``classes`` (``classes_``: the sorted distinct labels, their own
    type) and ``unlabeled`` ``bool [D]`` (the graph's :attr:`~gfbgcn.text.graph.text_graph.
    TextGraph.unlabeled`: the ``X_unlabeled`` documents, whose labels are placeholders)."""

    corpus: Corpus
    classes: np.ndarray
    unlabeled: np.ndarray


def fit_inputs(X: Any, y: Any, X_unlabeled: Any = None) -> FitInputs:
    """``X``, ``y`` and ``X_unlabeled`` checked (one line naming the first problem) and made
    into the corpus ``fit`` trains on, and :func:`gfbgcn.build_graph` builds the graph of."""
    docs = check_documents(X, "X")
    classes, labels = class_labels(y, len(docs))
    extra = [] if X_unlabeled is None else check_documents(X_unlabeled, "X_unlabeled")
    unlabeled = np.r_[np.zeros(len(docs), dtype=bool), np.ones(len(extra), dtype=bool)]
    return FitInputs(labelled_corpus(docs, labels, extra), classes, unlabeled)

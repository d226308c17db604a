"""The multi-label targets a scikit-learn user passes, read into label sets and given back.

``TextGCNClassifier(multi_label=True).fit(X, y)`` takes ``y`` in any of the forms such users
have at hand:

* a binary **indicator matrix** ``[n, L]`` (NumPy, a nested list of 0/1 rows, or SciPy
  sparse), as :class:`sklearn.preprocessing.MultiLabelBinarizer` gives it: ``classes_`` are
  then the column indices ``0 .. L-1`` (``MultiLabelBinarizer.classes_`` names them), a column
  no training document has included;
* **label collections**, one per document: lists, tuples or sets of labels (a set is fine
  here: it is one document's labels, whose order means nothing), strings or whole numbers of
  one kind; ``classes_`` are the distinct labels, sorted, in their own type;
* label sets **joined** by ``label_sep`` (``"econ|trade"``), as a corpus file holds them.

Which form ``y`` is: a SciPy sparse matrix, a two-dimensional array of numbers (or booleans),
and a nested list that NumPy reads as one whose values are all 0 or 1 are indicator matrices
(as scikit-learn reads them; so equal-length lists of the labels 0 and 1 are read as rows of
an indicator matrix); other sequences of sequences are label collections; strings are joined
labels.  An empty row or collection is a document without any label.

``predict`` gives back the form it was fitted with (:meth:`MultiLabelTargets.give_back`): an
indicator matrix of the same kind and dtype (dense or sparse), or a list of label lists (in
``classes_`` order); joined labels give the ``[n, L]`` 0/1 matrix of ``int64``, as before
other forms were taken.  A model directory records the form (:meth:`MultiLabelTargets.record`),
so a loaded classifier gives back the same.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence, Set
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import scipy.sparse as sp

from gfbgcn.core.errors import ModelLoadError, UserError
from gfbgcn.text.corpus.corpus import check_ordered
from gfbgcn.text.corpus.labels import split_labels

#: The forms of :class:`MultiLabelTargets`.
FORMS = ("indicator", "sparse", "lists", "joined")


@dataclass
class MultiLabelTargets:
    """Multi-label ``y`` read: each document's labels as strings (the names of the graph's
    label fields), the classes and the form ``y`` came in.

    ``sets``: ``[n]`` lists of label names (``str(label)``); ``classes``: ``[L]`` the labels in
    their own type, in column order; ``form``: one of :data:`FORMS`; ``dtype``: an indicator
    matrix's dtype; ``sparse_array``: a sparse indicator was a SciPy sparse *array* (else a
    sparse matrix).
    """

    sets: list[list[str]]
    classes: np.ndarray
    form: str
    dtype: np.dtype = field(default_factory=lambda: np.dtype(np.int64))
    sparse_array: bool = False

    @property
    def names(self) -> list[str]:
        """The label names in column order (the model's outputs)."""
        return [str(c) for c in self.classes]

    def joined(self, sep: str) -> list[str]:
        """Each document's labels joined by ``sep`` (a corpus's label field); a
        :class:`UserError` when a label holds ``sep`` (it would be split)."""
        for i, labels in enumerate(self.sets):
            bad = next((label for label in labels if sep in label), None)
            if bad is not None:
                raise UserError(f"y[{i}] holds the label {bad!r:.40}, which contains label_sep "
                                f"{sep!r}: give label_sep a string no label contains")
        return [sep.join(labels) for labels in self.sets]

    def give_back(self, indicator: np.ndarray) -> Any:
        """Predictions ``[n, L]`` 0/1 (columns in ``classes`` order) in the fitted form."""
        if self.form == "indicator":
            return indicator.astype(self.dtype)
        if self.form == "sparse":
            out = sp.csr_array(indicator.astype(self.dtype))
            return out if self.sparse_array else sp.csr_matrix(out)
        if self.form == "lists":
            values = self.classes.tolist()
            return [[values[j] for j in np.flatnonzero(row)] for row in indicator]
        return indicator.astype(np.int64)

    def record(self) -> dict[str, Any]:
        """What a model directory keeps of the form (``config.json``)."""
        return {"form": self.form, "dtype": self.dtype.name, "sparse_array": self.sparse_array}

    @classmethod
    def from_record(cls, record: Any, classes: list[Any], where: str) -> MultiLabelTargets:
        """The form recorded by :meth:`record` (``classes``: the fitted ones); a
        :class:`ModelLoadError` naming ``where`` for a record that is not one."""
        try:
            form, dtype = record["form"], np.dtype(record["dtype"])
            sparse_array = bool(record.get("sparse_array", False))
        except (KeyError, TypeError, ValueError):
            raise ModelLoadError(f"{where}: expected an object with form and dtype") from None
        if form not in FORMS or dtype.kind not in "biuf":
            raise ModelLoadError(f"{where}: form {form!r} of dtype {dtype.name}: expected one of "
                                 f"{', '.join(FORMS)}, of a numeric dtype")
        return cls([], np.asarray(classes), form, dtype, sparse_array)


def read_targets(y: Any, num_docs: int, sep: str, allow_empty: bool = False
                 ) -> MultiLabelTargets:
    """``y`` of a multi-label ``fit`` read (see the module docstring); a :class:`UserError` in
    one line for a length other than ``num_docs``, labels that are not strings or whole
    numbers of one kind, or (unless ``allow_empty``: ``score``'s ``y``) no label at all."""
    if y is None:
        raise UserError("TextGCNClassifier requires y to be passed, but the target y is None: "
                        "give each document's labels")
    check_ordered(y, "y")
    if sp.issparse(y):
        return _indicator(cast(Any, y), num_docs)
    matrix = _as_indicator(y)
    if matrix is not None:
        return _indicator(matrix, num_docs)
    if not isinstance(y, (Sequence, np.ndarray)) and not hasattr(y, "__array__"):
        raise UserError(f"y is a {type(y).__name__}: a multi-label y is a 0/1 indicator matrix, "
                        "each document's labels, or labels joined by label_sep")
    items = list(y)
    if len(items) != num_docs:
        raise UserError(f"X and y have different lengths: {num_docs} documents, {len(items)} "
                        "label sets")
    if all(isinstance(v, str) for v in items):
        sets = split_labels(items, sep)
        targets = MultiLabelTargets(sets, np.array(sorted({n for s in sets for n in s})),
                                    "joined")
    else:
        targets = _collections(items)
    if not len(targets.classes) and not allow_empty:
        raise UserError("no document of y has a label: there is nothing to learn")
    return targets


def _as_indicator(y: Any) -> np.ndarray | None:
    """``y`` as a 2-D array of numbers, or None when it is not one: an array (NumPy, pandas)
    of two dimensions and numbers is one (whose values :func:`_indicator` checks); a nested
    list is one when it is rectangular and holds 0 and 1 only (else: label lists)."""
    if isinstance(y, str):
        return None
    try:
        array = np.asarray(y)
    except ValueError:  # ragged: label collections
        return None
    if array.ndim != 2 or array.dtype.kind not in "biuf":
        return None
    if isinstance(y, (list, tuple)) and not (array.shape[1] and np.isin(array, (0, 1)).all()):
        return None
    return array


def _indicator(y: Any, num_docs: int) -> MultiLabelTargets:
    """An indicator matrix ``[n, L]`` (dense or sparse, not densified): columns ``0 .. L-1``."""
    sparse = sp.issparse(y)
    matrix: Any = sp.csr_array(y, copy=True) if sparse else np.asarray(y)  # (never written)
    if matrix.shape[0] != num_docs:
        raise UserError(f"X and y have different lengths: {num_docs} documents, "
                        f"{matrix.shape[0]} rows of the label matrix")
    if matrix.dtype.kind not in "biuf":
        raise UserError(f"y is a {matrix.dtype} matrix: a label matrix holds 0/1 numbers")
    values = matrix.data if sparse else matrix
    if not bool(np.isin(values, (0, 1)).all()):
        raise UserError("y is a matrix of values other than 0 and 1: a multi-label y is a 0/1 "
                        "indicator matrix (one column per label), label lists or joined labels")
    if matrix.shape[1] == 0:
        raise UserError("y has no column: a label matrix needs one column per label")
    if sparse:
        matrix.eliminate_zeros()  # stored zeros are not labels
        rows = np.split(matrix.indices, matrix.indptr[1:-1])
    else:
        rows = [np.flatnonzero(row) for row in matrix]
    sets = [[str(j) for j in np.sort(row)] for row in rows]
    return MultiLabelTargets(sets, np.arange(matrix.shape[1]), "sparse" if sparse else
                             "indicator", np.dtype(matrix.dtype),
                             sparse and isinstance(y, sp.sparray))


def _collections(items: list[Any]) -> MultiLabelTargets:
    """Label collections, one per document (lists, tuples, sets, arrays)."""
    flat: list[Any] = []
    per_doc: list[list[Any]] = []
    for i, item in enumerate(items):
        if isinstance(item, np.ndarray):
            item = item.tolist()
        if not isinstance(item, (Sequence, Set)) or isinstance(item, (str, bytes)):
            raise UserError(f"y[{i}] is {type(item).__name__} ({item!r:.40}): a multi-label y "
                            "holds each document's labels (a list, tuple or set), joined labels "
                            "(strings) or a 0/1 indicator matrix")
        labels = list(dict.fromkeys(item))  # each label once, in the order given
        for label in labels:
            _check_label(label, i)
        per_doc.append(labels)
        flat.extend(labels)
    kinds = {"str" if isinstance(v, str) else "number" for v in flat}
    if len(kinds) > 1:
        raise UserError("y mixes label types (number, str): give every label as the same type")
    classes = np.unique(np.asarray(flat)) if flat else np.array([], dtype=str)
    return MultiLabelTargets([[str(v) for v in labels] for labels in per_doc], classes, "lists")


def _check_label(label: Any, i: int) -> None:
    """A label is a non-empty string or a whole number."""
    if isinstance(label, str) and label.strip():
        return
    if (isinstance(label, numbers.Integral) and not isinstance(label, bool)) or (
            isinstance(label, numbers.Real) and float(label).is_integer()):
        return
    raise UserError(f"y[{i}] holds the label {label!r:.40}: a label is a non-empty string or a "
                    "whole number")

"""A corpus in memory: documents, string labels and a train/test flag per document.

Kept apart from :mod:`gfbgcn.text.corpus.benchmarks` (benchmark files) and
:mod:`gfbgcn.text.corpus.table` (user files) so that both readers build it without importing
each other.
"""

from __future__ import annotations

from collections.abc import ItemsView, Iterable, KeysView, Sequence, ValuesView
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gfbgcn.core.errors import CorpusFormatError, DocumentTypeError, InputError


def check_ordered(items: object, name: str) -> None:
    """Refuse, in one line, a collection without an order (a set, a frozenset, a dict's keys,
    values or items view): documents and labels are paired by position, and such a
    collection's iteration order is arbitrary (a set of texts would be trained under other
    texts' labels)."""
    if isinstance(items, (set, frozenset, KeysView, ValuesView, ItemsView, dict)):
        raise InputError(f"{name} is a {type(items).__name__}, whose order is arbitrary: "
                         "documents and labels are paired by position; pass a list")


def check_documents(items: Iterable[object] | str, name: str = "texts") -> list[str]:
    """``items`` as a list of documents; one string alone, a collection without an order
    (:func:`check_ordered`), or an item that is not a string (``None``, NaN from an empty
    pandas cell, bytes), is refused in one line naming its index:
    ``texts[2] is float (nan), not str: every document must be a string``."""
    if isinstance(items, (str, bytes)):
        raise InputError(f"{name} must be a list of documents, not one {type(items).__name__} "
                         f"(wrap it: [{name}])")
    check_ordered(items, name)
    shape = getattr(items, "shape", None)
    if shape is not None and len(shape) != 1:
        raise InputError(f"{name} must be one-dimensional, one document per item; got shape "
                         f"{tuple(shape)}")
    docs: list[str] = []
    for i, doc in enumerate(items):
        if not isinstance(doc, str):
            raise DocumentTypeError(f"{name}[{i}] is {type(doc).__name__} ({doc!r:.40}), not "
                                    "str: every document must be a string")
        docs.append(doc)
    return docs


@dataclass
class Corpus:
    """Documents with string labels and a train/test flag per document.

    ``benchmark``: the paper's benchmark it holds (``20ng``, ``r8``, ``r52``, ``ohsumed``; set by
    :func:`gfbgcn.text.corpus.benchmarks.load_benchmark`, kept by :meth:`subset`), whose graph
    and tokenizer defaults are the paper's (:func:`gfbgcn.text.params.graph_defaults`); ``None``
    for any other corpus.  ``unlabeled``: bool ``[num_docs]``, the test documents that carry no
    label (the ``X_unlabeled`` of :meth:`gfbgcn.TextGCNClassifier.fit`: nodes of the graph to
    classify, whose label field holds a placeholder that is never read); ``None``: every
    document has its label.  Test metrics are taken over the labelled test documents only.
    """

    name: str
    texts: list[str]
    labels: list[str]
    is_train: np.ndarray  # bool [num_docs]
    sources: list[Path] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    benchmark: str | None = None
    unlabeled: np.ndarray | None = None

    def __post_init__(self) -> None:
        self.is_train = np.asarray(self.is_train, dtype=bool)
        if not (len(self.texts) == len(self.labels) == len(self.is_train)):
            raise ValueError("texts, labels and is_train must have the same length")
        if self.unlabeled is not None:
            self.unlabeled = np.asarray(self.unlabeled, dtype=bool)
            if (self.unlabeled.shape != self.is_train.shape
                    or (self.unlabeled & self.is_train).any()):
                raise ValueError("unlabeled must flag test documents, one flag per document")
        if not self.texts:
            raise CorpusFormatError(f"corpus {self.name!r} is empty ({self.sources_str()})")

    def sources_str(self) -> str:
        return ", ".join(str(s) for s in self.sources) or "in memory"

    @property
    def label_names(self) -> list[str]:
        """Sorted distinct labels; class index ``i`` is ``label_names[i]``."""
        return sorted(set(self.labels))

    def label_ids(self) -> np.ndarray:
        index = {name: i for i, name in enumerate(self.label_names)}
        return np.fromiter((index[y] for y in self.labels), dtype=np.int64, count=len(self.labels))

    def __len__(self) -> int:
        return len(self.texts)

    def subset(self, idx: Sequence[int] | np.ndarray, name: str | None = None) -> Corpus:
        """A corpus of the documents ``idx`` (kept in that order)."""
        idx = np.asarray(idx, dtype=np.int64)
        return Corpus(
            name=name or f"{self.name}[subset {len(idx)}]",
            texts=[self.texts[i] for i in idx],
            labels=[self.labels[i] for i in idx],
            is_train=self.is_train[idx],
            sources=list(self.sources),
            notes=list(self.notes),
            benchmark=self.benchmark,
            unlabeled=None if self.unlabeled is None else self.unlabeled[idx],
        )

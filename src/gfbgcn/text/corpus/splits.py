r"""The validation split carved out of the training documents for early stopping.

:math:`V = \mathrm{round}(r \cdot n)` of the :math:`n` training documents (``val_ratio``
:math:`r`), drawn with the run's seed (``numpy.random.default_rng(seed)``), either

* **at random** (the paper's protocol, "10 % of the training set as validation"; kept for its
  four benchmarks and for multi-label training), or
* **stratified by class**: class :math:`c`, with :math:`n_c` training documents, gets
  :math:`v_c` of them, at least 1 where :math:`n_c \ge 2` and at most :math:`n_c - 1` (a class
  keeps a training document), otherwise as near its share :math:`r \, n_c` as the total
  allows: each class first gets :math:`\lfloor r \, n_c \rfloor` within those bounds, then
  the documents short of :math:`V` go one by one to the classes furthest below their share
  (those above it give them back, when the minima overshoot :math:`V`), ties in a seeded
  random order; :math:`V` itself moves only where the bounds force it (many classes of two
  documents: one validation document each).  A class of one training document has none.

The estimator draws the stratified split for a corpus of its own (not one of the paper's
benchmarks) and one label per document (:attr:`gfbgcn.text.graph.text_graph.TextGraph.
stratify_validation`): a random 10 % can leave a small class without a validation document,
and early stopping then never sees it.  Multi-label training keeps the random split: a
document's label set is one of many combinations, most too rare to stratify by.
"""

from __future__ import annotations

import numpy as np


def class_quotas(counts: np.ndarray, val_ratio: float, total: int,
                 rng: np.random.Generator) -> np.ndarray:
    """``[C]`` validation documents per class (see the module docstring): ``counts`` ``[C]``
    the training documents of each class, ``total`` the validation size aimed at."""
    counts = np.asarray(counts, dtype=np.int64)
    low = (counts >= 2).astype(np.int64)  # a class of two or more: one validation document
    high = np.maximum(counts - 1, 0)  # ... and one training document at least
    share = val_ratio * counts
    quota = np.clip(np.floor(share).astype(np.int64), low, high)
    total = int(np.clip(total, low.sum(), high.sum()))
    order = rng.permutation(len(counts))  # the seeded order that breaks ties
    while quota.sum() != total:
        gap = share - quota  # > 0: below its share
        if quota.sum() < total:
            room = np.flatnonzero(quota[order] < high[order])
            pick = order[room[np.argmax(gap[order][room])]]
            quota[pick] += 1
        else:
            room = np.flatnonzero(quota[order] > low[order])
            pick = order[room[np.argmin(gap[order][room])]]
            quota[pick] -= 1
    return quota


def validation_docs(train_docs: np.ndarray, labels: np.ndarray, val_ratio: float, seed: int,
                    stratified: bool = False) -> np.ndarray:
    """``[V]`` the validation documents drawn from ``train_docs`` (document ids) with
    ``seed``: at random, or ``stratified`` by their ``labels`` (``[D]`` class ids of every
    document); see the module docstring."""
    train_docs = np.asarray(train_docs)
    rng = np.random.default_rng(seed)
    n_val = int(round(val_ratio * len(train_docs)))
    if not stratified:  # the draw of every run before stratification: unchanged
        return rng.choice(train_docs, size=n_val, replace=False) if n_val else train_docs[:0]
    classes, inverse = np.unique(np.asarray(labels)[train_docs], return_inverse=True)
    counts = np.bincount(inverse, minlength=len(classes))
    quota = class_quotas(counts, val_ratio, n_val, rng)
    # each class's training documents, in document order (one sort, not a pass per class)
    groups = np.split(train_docs[np.argsort(inverse, kind="stable")], np.cumsum(counts)[:-1])
    picked = [rng.choice(group, size=int(q), replace=False)
              for group, q in zip(groups, quota) if q]
    return np.sort(np.concatenate(picked)) if picked else train_docs[:0]

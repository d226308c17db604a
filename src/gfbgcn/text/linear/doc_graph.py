r"""The documents' neighbourhood graph and label spreading over it: the mathematics of
:mod:`gfbgcn.text.linear.smoothing`.

**Document vectors** (:class:`DocumentVectors`): a document's word 1-2-gram TF-IDF row (the
word block of the linear models' n-gram features, its :data:`WORD_TERMS` largest weights kept),
its frozen encoder's embedding, or both, each of unit length.  The graph of ``both`` compares
documents by the mean of the two cosines.

**The graph** (:func:`knn_adjacency`): every document linked to its ``k`` most similar
documents by cosine similarity (exact, by blocks: :func:`nearest`),
weights ``max(cos, 0)``, made symmetric (``A = max(A, A^T)``) and row-normalised,
``P = D^{-1} A``.

**Label spreading seeded by a model** (Zhou et al. 2004, "Learning with local and global
consistency", with a classifier's probabilities as the seed instead of zeros, as in Huang et
al. 2021, "Combining label propagation and simple models out-performs graph neural
networks"): with ``Z`` ``[n, C]`` the model's class probabilities and the documents of known
label clamped to their one-hot ``Y``,

.. math::
    G \leftarrow (1 - \alpha) Z + \alpha P G, \qquad G_{\text{known}} = Y,

iterated :data:`ITERATIONS` times from ``G = Z`` (:func:`spread`).  ``P`` is row-stochastic,
so every row of ``G`` stays a probability vector: a document's answer is ``1 - α`` its model's
and ``α`` the similarity-weighted mean of its neighbours' answers.  The error after ``t``
iterations shrinks as ``α^t`` (``0.7^{30} \approx 2 \cdot 10^{-5}``).

**A new document** (:func:`extend`), not in the graph: the same equation for one more node
whose neighbours are its ``k`` most similar documents of the graph, ``g = (1 - α) z + α
\sum_j w_j G_j / \sum_j w_j``, with the graph's ``G`` as it is (the new node does not change
it).  A document of the graph predicted again this way gets nearly, not exactly, its value in
``G``: the graph's own rows also count the documents that chose it as a neighbour.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

#: A document's word vector keeps its largest weights, this many: the graph of long documents
#: (and a saved model's copy of it) stays small, and the words that carry a document's cosine
#: with another are its heaviest.
WORD_TERMS = 100
#: Iterations of :func:`spread` (see the module docstring for the error it leaves).
ITERATIONS = 30
#: The graphs, by the vectors they compare.
GRAPHS = ("words", "encoder", "both")


@dataclass
class DocumentVectors:
    """The vectors documents are compared by: ``words`` ``[n, V_w]`` (CSR) and ``embeddings``
    ``[n, d]``, each row of unit length (or zero), either None when absent."""

    words: sp.csr_matrix | None = None
    embeddings: np.ndarray | None = None

    def __post_init__(self) -> None:
        if self.words is None and self.embeddings is None:
            raise ValueError("document vectors need words, embeddings or both")
        for name, values in (("words", None if self.words is None else self.words.data),
                             ("embeddings", self.embeddings)):
            if values is not None and not np.isfinite(values).all():
                raise ValueError(f"document vectors: {name} hold non-finite values")
        if self.words is not None and self.embeddings is not None \
                and self.words.shape[0] != self.embeddings.shape[0]:
            raise ValueError(f"{self.words.shape[0]} word rows but {self.embeddings.shape[0]} "
                             "embedding rows")

    def __len__(self) -> int:
        if self.words is not None:
            return int(self.words.shape[0])
        assert self.embeddings is not None
        return len(self.embeddings)

    @property
    def graphs(self) -> tuple[str, ...]:
        """The graphs these vectors can make (:data:`GRAPHS`)."""
        return tuple(g for g, ok in zip(GRAPHS, (self.words is not None,
                                                 self.embeddings is not None,
                                                 self.words is not None
                                                 and self.embeddings is not None)) if ok)

    def take(self, index: np.ndarray) -> DocumentVectors:
        """The vectors of the documents ``index``, in that order."""
        return DocumentVectors(None if self.words is None else self.words[index],
                               None if self.embeddings is None else self.embeddings[index])


def unit_rows(x: np.ndarray) -> np.ndarray:
    """``x`` with every non-zero row scaled to unit length (zero rows stay zero)."""
    x = np.asarray(x, dtype=np.float64)
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return x / np.where(norms > 0, norms, 1.0)


def unit_sparse_rows(x: sp.csr_matrix) -> sp.csr_matrix:
    """:func:`unit_rows` of a sparse matrix (a CSR copy)."""
    x = sp.csr_matrix(x, dtype=np.float64, copy=True)
    norms = np.sqrt(np.asarray(x.multiply(x).sum(axis=1)).ravel())
    x.data /= np.repeat(np.where(norms > 0, norms, 1.0), np.diff(x.indptr))
    return x


def heaviest_terms(x: sp.csr_matrix, keep: int = WORD_TERMS) -> sp.csr_matrix:
    """``x`` with only the ``keep`` largest entries of each row (ties: the lower column),
    rows then of unit length again."""
    x = sp.csr_matrix(x, dtype=np.float64)
    x.sort_indices()
    row = np.repeat(np.arange(x.shape[0]), np.diff(x.indptr))
    order = np.lexsort((-x.data, row))  # by row, then by weight, largest first
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order)) - x.indptr[row[order]]
    kept = rank < keep
    pruned = sp.csr_matrix((x.data[kept], x.indices[kept], np.concatenate(
        [[0], np.cumsum(np.bincount(row[kept], minlength=x.shape[0]))])), shape=x.shape)
    return unit_sparse_rows(pruned)


#: Similarities computed at once in :func:`nearest`: a block of query rows against every
#: reference row, at most this many entries (float64: 128 MiB).
BLOCK_ENTRIES = 2 ** 24


def similarity(query: DocumentVectors, reference: DocumentVectors, graph: str) -> np.ndarray:
    """``[n, N]`` cosine similarities of ``graph`` between the query and reference documents:
    of their words, their embeddings, or the mean of the two (``both``; a document without a
    word has cosine 0 there).  Every row is of unit length or zero, so a dot product is the
    cosine."""
    for vectors in (query, reference):
        if graph not in vectors.graphs:
            raise ValueError(f"graph {graph!r} needs vectors these documents lack (they make "
                             f"{', '.join(vectors.graphs)})")
    parts = []
    if graph in ("words", "both"):
        assert query.words is not None and reference.words is not None
        parts.append((query.words @ reference.words.T).toarray())
    if graph in ("encoder", "both"):
        assert query.embeddings is not None and reference.embeddings is not None
        parts.append(query.embeddings @ reference.embeddings.T)
    return parts[0] if len(parts) == 1 else 0.5 * (parts[0] + parts[1])


def nearest(query: DocumentVectors, reference: DocumentVectors, graph: str, k: int,
            exclude_self: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """``(index [n, k'], similarity [n, k'])``: each query document's ``k'`` most similar
    reference documents by the cosine of ``graph`` (:func:`similarity`), most similar first,
    ``k' = min(k, references)`` (``k' = min(k, references - 1)`` with ``exclude_self``: the
    query is the reference, and no document is its own neighbour).

    Exact, by blocks of :data:`BLOCK_ENTRIES` similarities, not scikit-learn's
    ``NearestNeighbors``: its brute-force cosine on a sparse matrix with the embeddings beside
    the words took 108 s for mpqa-opinion's 10,603 documents against 1 s here (the two
    cosines computed apart, one sparse and one dense product)."""
    n, total = len(query), len(reference)
    width = min(k, total - int(exclude_self))
    if width <= 0 or n == 0:
        return np.zeros((n, 0), dtype=np.int64), np.zeros((n, 0))
    step = max(1, BLOCK_ENTRIES // max(total, 1))
    index = np.empty((n, width), dtype=np.int64)
    sim = np.empty((n, width))
    for start in range(0, n, step):
        rows = np.arange(start, min(start + step, n))
        block = similarity(query.take(rows), reference, graph)
        if exclude_self:
            block[np.arange(len(rows)), rows] = -np.inf
        top = np.argpartition(-block, width - 1, axis=1)[:, :width]
        values = np.take_along_axis(block, top, axis=1)
        order = np.argsort(-values, axis=1, kind="stable")
        index[rows] = np.take_along_axis(top, order, axis=1)
        sim[rows] = np.take_along_axis(values, order, axis=1)
    return index, sim


def knn_adjacency(vectors: DocumentVectors, graph: str, k: int) -> sp.csr_matrix:
    """``P`` ``[n, n]``: the row-normalised symmetric ``k``-nearest-neighbour graph of the
    documents by the cosine of ``graph`` (module docstring); a row without a positive
    similarity stays zero."""
    n = len(vectors)
    if n < 2:
        return sp.csr_matrix((n, n))
    index, sim = nearest(vectors, vectors, graph, k, exclude_self=True)
    a = sp.csr_matrix((np.maximum(sim, 0.0).ravel(),
                       (np.repeat(np.arange(n), index.shape[1]), index.ravel())), shape=(n, n))
    a = a.maximum(a.T).tocsr()
    a.eliminate_zeros()
    degree = np.asarray(a.sum(axis=1)).ravel()
    return (sp.diags(np.where(degree > 0, 1.0 / np.where(degree > 0, degree, 1.0), 0.0))
            @ a).tocsr()


def spread(p: sp.csr_matrix, prior: np.ndarray, known: np.ndarray, targets: np.ndarray,
           alpha: float, iterations: int = ITERATIONS) -> np.ndarray:
    """``G`` ``[n, C]`` of label spreading seeded by ``prior`` (module docstring).

    Args:
        p: ``[n, n]`` the row-normalised graph (:func:`knn_adjacency`).
        prior: ``[n, C]`` the model's class probabilities of every document.
        known: indices of the documents whose label is known (clamped).
        targets: ``[len(known), C]`` their one-hot labels.
        alpha: the neighbours' share, in ``[0, 1)``.
        iterations: steps of the iteration.
    """
    if not 0.0 <= alpha < 1.0:
        raise ValueError(f"alpha must be in [0, 1), got {alpha}")
    g0 = np.array(prior, dtype=np.float64, copy=True)
    g0[known] = targets
    g, seed = g0.copy(), (1.0 - alpha) * g0
    for _ in range(iterations):
        g = seed + alpha * (p @ g)
        g[known] = targets
    return g


def extend(prior: np.ndarray, index: np.ndarray, similarity: np.ndarray,
           reference: np.ndarray, alpha: float) -> np.ndarray:
    """``[n, C]`` the answers of ``n`` new documents (module docstring): ``prior`` ``[n, C]``
    their model's probabilities, ``index``/``similarity`` ``[n, k]`` their neighbours in the
    graph (:func:`nearest`), ``reference`` ``[N, C]`` the graph's ``G``.  A document without a
    positive similarity keeps its prior."""
    w = np.maximum(similarity, 0.0)
    total = w.sum(axis=1, keepdims=True)
    mean = np.einsum("nk,nkc->nc", w, reference[index]) / np.where(total > 0, total, 1.0)
    return np.where(total > 0, (1.0 - alpha) * prior + alpha * mean, prior)


@dataclass
class Smoothing:
    """A linear model's answers smoothed over the graph of the documents it was fitted
    beside: what a saved model needs to answer for new documents as :func:`extend` says.

    ``graph``: one of :data:`GRAPHS`; ``alpha``: the neighbours' share; ``k``: neighbours per
    document; ``reference``: the vectors of the graph's documents (the corpus's); ``answers``
    ``[N, C]``: their ``G``.
    """

    graph: str
    alpha: float
    k: int
    reference: DocumentVectors
    answers: np.ndarray

    def __post_init__(self) -> None:
        if self.graph not in GRAPHS:
            raise ValueError(f"graph {self.graph!r} is not one of {', '.join(GRAPHS)}")
        if not 0.0 < self.alpha < 1.0 or self.k < 1:
            raise ValueError(f"alpha {self.alpha} must be in (0, 1) and k {self.k} >= 1")
        if self.graph not in self.reference.graphs:
            raise ValueError(f"graph {self.graph!r} needs vectors the reference lacks")
        answers = np.asarray(self.answers)
        if answers.ndim != 2 or len(answers) != len(self.reference) \
                or not np.isfinite(answers).all():
            raise ValueError(f"answers of shape {answers.shape}: expected one finite row for "
                             f"each of the {len(self.reference)} reference documents")

    @property
    def description(self) -> str:
        """``smoothed over words (k=10, alpha=0.4)``, for printing."""
        return f"smoothed over {self.graph} (k={self.k}, alpha={self.alpha:g})"

    def apply(self, prior: np.ndarray, vectors: DocumentVectors) -> np.ndarray:
        """``[n, C]`` the answers for new documents of model probabilities ``prior`` and
        vectors ``vectors`` (:func:`extend`)."""
        if len(vectors) == 0:
            return np.asarray(prior, dtype=np.float64)
        index, sim = nearest(vectors, self.reference, self.graph, self.k)
        return extend(prior, index, sim, self.answers, self.alpha)

    def to_tensors(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """``(arrays, JSON metadata)`` (no pickle): the reference vectors (words as CSR
        arrays, embeddings float32) and the answers (float32)."""
        arrays: dict[str, np.ndarray] = {"smoothing.answers":
                                         np.asarray(self.answers, dtype=np.float32)}
        meta: dict[str, Any] = {"graph": self.graph, "alpha": self.alpha, "k": self.k,
                                   "documents": len(self.reference)}
        words, embeddings = self.reference.words, self.reference.embeddings
        if words is not None and self.graph != "encoder":
            arrays.update({"smoothing.words.data": words.data.astype(np.float32),
                           "smoothing.words.indices": words.indices.astype(np.int64),
                           "smoothing.words.indptr": words.indptr.astype(np.int64)})
            meta["word_columns"] = int(words.shape[1])
        if embeddings is not None and self.graph != "words":
            arrays["smoothing.embeddings"] = np.asarray(embeddings, dtype=np.float32)
        return arrays, meta

    @classmethod
    def from_tensors(cls, arrays: dict[str, np.ndarray], meta: dict[str, Any]
                     ) -> Smoothing:
        """The smoothing of :meth:`to_tensors`' output; a ``ValueError`` naming what is
        missing or inconsistent."""
        n = int(meta["documents"])
        words = None
        if "smoothing.words.data" in arrays:
            indptr = np.asarray(arrays["smoothing.words.indptr"], dtype=np.int64)
            if len(indptr) != n + 1:
                raise ValueError(f"smoothing.words.indptr: {len(indptr)} entries for {n} "
                                 "documents")
            words = sp.csr_matrix((np.asarray(arrays["smoothing.words.data"], np.float64),
                                   np.asarray(arrays["smoothing.words.indices"], np.int64),
                                   indptr), shape=(n, int(meta["word_columns"])))
            words.check_format(full_check=True)  # a column out of range: ValueError
        embeddings = arrays.get("smoothing.embeddings")
        reference = DocumentVectors(words, None if embeddings is None
                                    else np.asarray(embeddings, dtype=np.float64))
        return cls(graph=str(meta["graph"]), alpha=float(meta["alpha"]),
                   k=int(meta["k"]), reference=reference,
                   answers=np.asarray(arrays["smoothing.answers"], dtype=np.float64))

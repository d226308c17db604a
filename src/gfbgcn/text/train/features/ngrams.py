"""Document input features from the linear baseline's n-grams (``features="ngram"``).

A document node's row of ``F`` is its word 1-2-gram + ``char_wb`` 2-5-gram TF-IDF, computed by
the baseline's own :class:`~gfbgcn.text.linear.ngrams.NgramFeatures` (sublinear TF, smoothed
IDF, each block L2-normalised); a word node's row is zero.  The vocabulary and IDF are fitted on
the texts of the training split (training and validation documents: texts, never labels; test
documents are not looked at), and only the :data:`MAX_FEATURES` n-grams found in the most
training documents (but in at most :data:`MAX_DF` of them) are kept, so that ``W2``
``[f, hidden]`` stays small and an epoch cheap.  The kept n-grams are a vocabulary of their own
(each block normalised over its kept columns), and ``F`` is their TF-IDF times
:data:`FEATURE_SCALE` (:class:`DocNgrams`), so a new document's row is computed from its text
with the saved vocabulary, IDF and scale exactly as in training (:class:`NgramDocFeatures`).

Why these caps (``gfb-max``, seed 0, validation accuracy; epoch times alternated with one-hot
runs in one process, one thread, on a 2-core machine shared with other work, so rough).  The
cost of ``F W2`` is its stored entries times ``hidden`` (forward and backward), not its width:
on R8 the 20,000 n-grams in the most documents still hold 6.2M of the 7.0M entries of all 280k,
and an epoch took 2.5x a one-hot one, validation 97.08 (one-hot 97.26).  The n-grams in more
than :data:`MAX_DF` (10 %) of the training documents are nearly constant (IDF near 1) but hold
most entries: without them 20,000 n-grams hold 2.7M entries (1.65x a one-hot epoch), 5,000
hold 1.75M.  Unscaled, the feature part learns about ``||F_d||_1`` times faster than ``W1``
under Adam and overfits short texts within 3 epochs (subjectivity: 87.71 against one-hot
89.29); :data:`FEATURE_SCALE` 0.1 gave 89.71 (0.03: 89.57).  With both, 20,000 / 10,000 / 5,000
n-grams gave 96.53 / 97.08 / 97.26 on R8 and 89.71 / 89.57 / 89.43 on subjectivity: the same
within a seed's spread, so the cheapest.

At scale (the baseline's hashing thresholds, :data:`gfbgcn.text.linear.ngrams.HASH_ABOVE`
training documents or :data:`~gfbgcn.text.linear.ngrams.HASH_CHARS` characters) the full
character-n-gram vocabulary would not fit in memory: such a corpus is refused in one line.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp
import torch

from gfbgcn.core.errors import OptionError
from gfbgcn.nn.models import FeatureTextGCN
from gfbgcn.text.graph.text_graph import TextGraph
from gfbgcn.text.linear.ngrams import (
    HASH_ABOVE,
    HASH_CHARS,
    FittedCounts,
    NgramFeatures,
    needs_hashing,
)
from gfbgcn.text.train.features.inputs import DocInput, sparse_node_features

#: The n-gram columns kept (those in the most training documents, below :data:`MAX_DF`).
MAX_FEATURES = 5_000
#: N-grams in more than this share of the training documents are dropped.
MAX_DF = 0.1
#: ``F`` is the TF-IDF times this: with Adam, the feature part's step size relative to ``W1``'s.
FEATURE_SCALE = 0.1


def capped_columns(fitted: NgramFeatures, blocks: list[sp.csr_matrix], max_features: int,
                   max_df: float = MAX_DF
                   ) -> tuple[NgramFeatures, tuple[np.ndarray, np.ndarray]]:
    """The ``max_features`` columns of ``fitted`` found in the most fitting documents (ties:
    the earlier column) but in no more than a share ``max_df`` of them, as a featuriser of its
    own, and those columns of the word and of the char block."""
    if fitted.hashed:
        raise ValueError("capped_columns needs a vocabulary, not hashed features")
    df = np.concatenate([np.bincount(b.indices, minlength=b.shape[1]) for b in blocks])
    allowed = np.flatnonzero(df <= max_df * blocks[0].shape[0])
    keep = np.sort(allowed[np.argsort(-df[allowed], kind="stable")[:max_features]])
    width = blocks[0].shape[1]
    columns = (keep[keep < width], keep[keep >= width] - width)
    word_vocab, char_vocab = fitted.word_vocab or [], fitted.char_vocab or []
    capped = NgramFeatures(fitted.idf[keep], [word_vocab[i] for i in columns[0]],
                           [char_vocab[i] for i in columns[1]])
    return capped, columns


def cut_columns(blocks: list[sp.csr_matrix], columns: tuple[np.ndarray, np.ndarray]
                ) -> list[sp.csr_matrix]:
    """The word and char count blocks cut to ``columns`` (one index array per block): the
    counts of a featuriser of those columns (the same n-grams in the same order)."""
    cut = [blocks[0][:, columns[0]].tocsr(), blocks[1][:, columns[1]].tocsr()]
    for b in cut:  # in column order, as counts() gives them: each row's norm sums alike
        b.sort_indices()
    return cut


def ngram_fits(texts: Sequence[str], fit_idx: np.ndarray) -> bool:
    """Whether the training split ``texts[fit_idx]`` is small enough for an n-gram vocabulary
    (the baseline's hashing thresholds; see the module docstring)."""
    return not needs_hashing(texts, fit_idx)


def fit_input_ngrams(texts: Sequence[str], fit_idx: np.ndarray, max_features: int = MAX_FEATURES,
                     max_df: float = MAX_DF, counts: FittedCounts | None = None
                     ) -> tuple[NgramFeatures, sp.csr_matrix]:
    """The capped featuriser fitted on ``texts[fit_idx]`` and the ``[len(texts), f]`` TF-IDF
    rows of every text (the fitting ones from the counts already made).

    Args:
        texts: every document, in the graph's order.
        fit_idx: the documents of the training split (vocabulary and IDF).
        max_features, max_df: the columns kept (:data:`MAX_FEATURES`, :data:`MAX_DF`).
        counts: the full featuriser already fitted on ``texts[fit_idx]`` with its counts (the
            baseline's, :meth:`~gfbgcn.text.linear.baseline.BaselineResult.take_counts`):
            the same vocabulary, not fitted again.
    """
    fit_idx = np.asarray(fit_idx)
    if not ngram_fits(texts, fit_idx):
        raise OptionError("{0} ngram: the training split is too large for an n-gram "
                          "vocabulary (more than {docs:,} documents or {chars:,} characters); "
                          "use onehot", "features", docs=HASH_ABOVE, chars=HASH_CHARS)
    if counts is None:
        fitted, blocks = NgramFeatures.fit([texts[i] for i in fit_idx], hashed=False)
    else:
        fitted, blocks = counts.featuriser, counts.in_order(fit_idx)
    ngrams, columns = capped_columns(fitted, blocks, max_features, max_df)
    parts = [(fit_idx, ngrams.transform_counts(cut_columns(blocks, columns)))]
    rest = np.setdiff1d(np.arange(len(texts)), fit_idx)
    counted = None if counts is None else counts.rest_counts(rest)  # the baseline's, if kept
    if len(rest) and counted is not None:
        parts.append((rest, ngrams.transform_counts(cut_columns(counted, columns))))
    elif len(rest):
        parts.append((rest, ngrams.transform([texts[i] for i in rest])))
    order = np.concatenate([idx for idx, _ in parts])
    stacked = sp.vstack([m for _, m in parts], format="csr")
    return ngrams, sp.csr_matrix(stacked[np.argsort(order, kind="stable")])


@dataclass
class DocNgrams:
    """The featuriser of ``features="ngram"``: a document's row of ``F`` is ``scale`` times
    its capped n-gram TF-IDF row (:data:`FEATURE_SCALE`)."""

    ngrams: NgramFeatures
    scale: float = FEATURE_SCALE

    @property
    def num_features(self) -> int:
        return self.ngrams.num_features

    def scaled(self, rows: sp.csr_matrix) -> sp.csr_matrix:
        out = sp.csr_matrix(rows, dtype=np.float64, copy=True)
        out.data *= self.scale
        return out

    def transform(self, texts: Sequence[str]) -> sp.csr_matrix:
        """``[B, f]`` rows of ``F`` of ``texts``, as training computes them."""
        return self.scaled(self.ngrams.transform(list(texts)))

    def meta(self) -> dict[str, Any]:
        return {**self.ngrams.meta(), "scale": self.scale}

    @classmethod
    def from_meta(cls, meta: dict[str, Any], idf: np.ndarray) -> DocNgrams:
        return cls(NgramFeatures.from_meta(meta, idf), float(meta["scale"]))


def ngram_input(texts: Sequence[str], graph: TextGraph, max_features: int = MAX_FEATURES,
                max_df: float = MAX_DF, scale: float = FEATURE_SCALE,
                counts: FittedCounts | None = None) -> DocInput:
    """The documents' input rows for training on ``graph`` with ``features="ngram"``
    (vocabulary and IDF from the graph's training split, ``graph.is_train``; ``counts``: see
    :func:`fit_input_ngrams`)."""
    if len(texts) != graph.num_docs:
        raise ValueError(f"{len(texts)} texts for a graph of {graph.num_docs} documents")
    start = time.perf_counter()
    ngrams, rows = fit_input_ngrams(list(texts), np.flatnonzero(graph.is_train), max_features,
                                    max_df, counts)
    source = DocNgrams(ngrams, scale)
    return DocInput(source.scaled(rows), source, time.perf_counter() - start)


@dataclass
class NgramDocFeatures:
    """The feature part of a model trained with ``features="ngram"``, for new documents
    (:mod:`gfbgcn.text.predict.inductive`): a document's part of layer 1 is ``F_d W2`` with
    ``F_d`` its row from the saved vocabulary, IDF and scale (:class:`DocNgrams`)."""

    featuriser: DocNgrams
    w2: torch.Tensor  # [f, hidden]
    info: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.w2.dim() != 2 or self.w2.shape[0] != self.featuriser.num_features:
            raise ValueError(f"feature_w2 has shape {list(self.w2.shape)}, expected "
                             f"[{self.featuriser.num_features}, hidden]")
        self.info = {"kind": "ngram", **self.featuriser.meta()}

    @classmethod
    def from_model(cls, model: Any) -> NgramDocFeatures | None:
        """Those of a trained :class:`~gfbgcn.nn.models.FeatureTextGCN` on sparse features
        whose ``source`` is the featuriser (None for any other model)."""
        if not (isinstance(model, FeatureTextGCN) and model.sparse_features):
            return None
        if not isinstance(model.source, DocNgrams):
            raise ValueError("a model on sparse features needs its n-gram featuriser "
                             "(FeatureTextGCN.source) to classify new documents")
        return cls(model.source, model.w2.detach().clone())

    def to(self, device: Any) -> NgramDocFeatures:
        self.w2 = self.w2.to(device)
        return self

    def rows(self, texts: Sequence[str]) -> sp.csr_matrix:
        """``F_d`` ``[B, f]`` of ``texts``, as training computes them."""
        return self.featuriser.transform(texts)

    def doc_rows(self, weights: sp.csr_matrix, texts: Sequence[str] | None = None
                 ) -> torch.Tensor:
        """``F_d W2`` ``[B, hidden]`` of the documents ``texts`` (``weights``, their
        doc-word edges, are not needed)."""
        if texts is None:
            raise ValueError("n-gram features are computed from the documents' texts")
        f_d = sparse_node_features(self.rows(texts), len(texts)).to(dtype=self.w2.dtype)
        return f_d.to(self.w2.device) @ self.w2

    def tensors(self) -> dict[str, torch.Tensor]:
        """What a saved model stores (the vocabularies go to ``config.json``: :attr:`info`)."""
        return {"feature_w2": self.w2, "feature_idf": torch.from_numpy(self.featuriser.ngrams.idf)}

    @classmethod
    def from_saved(cls, tensors: dict[str, torch.Tensor], entry: dict[str, Any], hidden: int
                   ) -> NgramDocFeatures:
        """The features of a loaded model directory (``entry``: its ``features`` config);
        ``ValueError`` names a missing tensor or a shape that does not fit."""
        missing = [k for k in ("feature_w2", "feature_idf") if k not in tensors]
        if missing:
            raise ValueError(f"features 'ngram' recorded but tensors {missing} are missing")
        try:
            idf = tensors["feature_idf"].numpy().astype(np.float64)
            featuriser = DocNgrams.from_meta(entry, idf)
        except (KeyError, TypeError) as err:
            raise ValueError(f"features 'ngram': incomplete n-gram settings ({err})") from None
        w2 = tensors["feature_w2"]
        if list(w2.shape) != [featuriser.num_features, hidden]:
            raise ValueError(f"feature_w2 has shape {list(w2.shape)}, expected "
                             f"[{featuriser.num_features}, {hidden}]")
        return cls(featuriser, w2)

"""Document input features from a frozen sentence encoder (``features="encoder"``).

As BertGCN initialises its document nodes (Lin et al. 2021), a **document** node's row of
``F`` is the encoder's embedding of the document (:mod:`gfbgcn.text.encoder`: unit length,
pooled as the encoder says), times :data:`FEATURE_SCALE`; a **word** node's row is zero
(``"zeros"``, BertGCN's choice) or the encoder's embedding of the word itself (``"encoder"``,
:data:`WORD_ROWS`).  The default scale and word rows were chosen on validation documents
(``benchmarks/encoder_choices.py``, ``docs/results/encoder-choices.md``): the words' own
embeddings had the highest mean validation accuracy with GFB-MaxVec on three short-document
corpora and R8; the scale, 0.1, over those and R52 and Ohsumed with GFB-MaxVec and
GFB-DiagVec, on the graphs ``--auto`` trains them on.  At scale 1 the long-document runs
stopped early at 18-64 % validation accuracy; at 0.1 they reached 66-96 %.
:class:`~gfbgcn.nn.models.FeatureTextGCN` computes layer 1 as ``Â (W1 + F W2)``, so the
embeddings reach the words through their document edges either way.
A new document's row is its embedding by the same encoder, at the same scale
(:class:`EncoderDocFeatures`): a saved model records the encoder (its identity), and loading it
needs the same encoder files.

The embeddings of the corpus come in as a :class:`CorpusEmbeddings` (the estimator embeds the
documents once per fit, through the on-disk cache of :mod:`gfbgcn.text.encoder`); nothing here
loads a model.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp
import torch

from gfbgcn.nn.models import FeatureTextGCN
from gfbgcn.text.graph.text_graph import TextGraph
from gfbgcn.text.train.features.inputs import DocInput

#: ``F`` is the embeddings times this (Adam's step on ``W2`` relative to ``W1``'s, as for the
#: n-gram features): chosen on validation (module docstring).
FEATURE_SCALE = 0.1
#: What a word node's row of ``F`` is: ``"zeros"`` or ``"encoder"`` (the word embedded).
WORD_ROW_KINDS = ("zeros", "encoder")
WORD_ROWS = "encoder"

#: How a model embeds texts with its encoder (:class:`gfbgcn.text.encoder.embedder.Embedder`).
Embed = Callable[[list[str]], np.ndarray]


@dataclass
class CorpusEmbeddings:
    """A corpus embedded by a frozen encoder: ``embeddings`` ``[num_docs, d]`` in corpus order,
    ``embed`` the function that embeds other texts the same way (new documents, words), and
    ``identity`` the encoder's record (:meth:`gfbgcn.text.encoder.EncoderIdentity.to_dict`),
    which a saved model keeps; ``seconds``: what embedding the corpus took."""

    embeddings: np.ndarray
    embed: Embed = field(repr=False)
    identity: dict[str, Any]
    seconds: float = 0.0
    #: the same encoder through the embedding cache, for many texts at once (a vocabulary:
    #: the graphs of a search share most of their words); None: ``embed``
    embed_many: Embed | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.embeddings.ndim != 2 or not np.isfinite(self.embeddings).all():
            raise ValueError("embeddings must be a finite [num_docs, d] array")

    @property
    def dim(self) -> int:
        return int(self.embeddings.shape[1])


@dataclass
class DocEmbeddings:
    """The featuriser of ``features="encoder"`` (kept with the model as
    :attr:`FeatureTextGCN.source`): a document's row of ``F`` is ``scale`` times its embedding;
    ``embed`` embeds texts (set again when a saved model is loaded)."""

    identity: dict[str, Any]
    scale: float = FEATURE_SCALE
    word_rows: str = WORD_ROWS
    embed: Embed | None = field(default=None, repr=False, compare=False)

    def transform(self, texts: Sequence[str]) -> np.ndarray:
        """``[B, d]`` rows of ``F`` of ``texts``, as training computes them."""
        if self.embed is None:
            raise ValueError("encoder features need their encoder to embed new documents: "
                             "load the model with gfbgcn.load")
        return np.asarray(self.embed(list(texts)), dtype=np.float32) * np.float32(self.scale)

    def meta(self) -> dict[str, Any]:
        """The ``features`` entry of a saved model's configuration."""
        return {"kind": "encoder", "scale": self.scale, "word_rows": self.word_rows,
                "dim": int(self.identity.get("dim", 0))}


def encoder_input(corpus: CorpusEmbeddings, graph: TextGraph, scale: float = FEATURE_SCALE,
                  word_rows: str = WORD_ROWS) -> DocInput:
    """The documents' (and words') input rows for training on ``graph`` with
    ``features="encoder"``: ``scale`` times each document's embedding; the word rows zero, or
    (``word_rows="encoder"``) the encoder's embedding of each vocabulary word, scaled alike."""
    if word_rows not in WORD_ROW_KINDS:
        raise ValueError(f"word_rows must be one of {', '.join(WORD_ROW_KINDS)}, got "
                         f"{word_rows!r}")
    if corpus.embeddings.shape[0] != graph.num_docs:
        raise ValueError(f"{corpus.embeddings.shape[0]} embeddings for a graph of "
                         f"{graph.num_docs} documents")
    start = time.perf_counter()
    source = DocEmbeddings(corpus.identity, scale, word_rows, corpus.embed)
    words = None
    if word_rows == "encoder" and graph.vocab:
        embed = corpus.embed_many or corpus.embed
        words = np.asarray(embed(list(graph.vocab)), dtype=np.float32) * np.float32(scale)
    rows = np.asarray(corpus.embeddings, dtype=np.float32) * np.float32(scale)
    return DocInput(rows, source, time.perf_counter() - start, word_rows=words)


@dataclass
class EncoderDocFeatures:
    """The feature part of a model trained with ``features="encoder"``, for new documents
    (:mod:`gfbgcn.text.predict.inductive`): a document's part of layer 1 is ``F_d W2`` with
    ``F_d`` its embedding by the model's encoder, scaled (:class:`DocEmbeddings`)."""

    featuriser: DocEmbeddings
    w2: torch.Tensor  # [d, hidden]
    info: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.info = self.featuriser.meta()

    @classmethod
    def from_model(cls, model: Any) -> EncoderDocFeatures | None:
        """Those of a trained :class:`~gfbgcn.nn.models.FeatureTextGCN` whose ``source`` is
        a :class:`DocEmbeddings` (None for any other model)."""
        if not (isinstance(model, FeatureTextGCN) and isinstance(model.source, DocEmbeddings)):
            return None
        return cls(model.source, model.w2.detach().clone())

    def to(self, device: Any) -> EncoderDocFeatures:
        self.w2 = self.w2.to(device)
        return self

    def doc_rows(self, weights: sp.csr_matrix, texts: Sequence[str] | None = None
                 ) -> torch.Tensor:
        """``F_d W2`` ``[B, hidden]`` of the documents ``texts`` (``weights``, their
        doc-word edges, are not needed)."""
        if texts is None:
            raise ValueError("encoder features are computed from the documents' texts")
        f_d = torch.from_numpy(self.featuriser.transform(texts))
        return f_d.to(device=self.w2.device, dtype=self.w2.dtype) @ self.w2

    def tensors(self) -> dict[str, torch.Tensor]:
        """What a saved model stores (the encoder's record goes to ``config.json``)."""
        return {"feature_w2": self.w2}

    @classmethod
    def from_saved(cls, tensors: dict[str, torch.Tensor], entry: dict[str, Any], hidden: int,
                   identity: dict[str, Any]) -> EncoderDocFeatures:
        """The features of a loaded model directory (``entry``: its ``features`` config,
        ``identity``: its encoder's record); ``ValueError`` names what does not fit."""
        if "feature_w2" not in tensors:
            raise ValueError("features 'encoder' recorded but tensor 'feature_w2' is missing")
        w2 = tensors["feature_w2"]
        dim = int(identity.get("dim", -1))
        if list(w2.shape) != [dim, hidden]:
            raise ValueError(f"feature_w2 has shape {list(w2.shape)}, expected "
                             f"[{dim}, {hidden}] (the encoder's width, hidden)")
        scale, word_rows = entry.get("scale"), entry.get("word_rows")
        if isinstance(scale, bool) or not isinstance(scale, (int, float)) \
                or not np.isfinite(scale) or scale <= 0 or word_rows not in WORD_ROW_KINDS:
            raise ValueError("features 'encoder': scale and word_rows malformed")
        return cls(DocEmbeddings(identity, float(scale), str(word_rows)), w2)

"""The input of the text models beside the identity: what each ``features`` kind gives.

``--features onehot`` is the paper's ``X = I``; ``wordllama`` appends pretrained word vectors
(:mod:`gfbgcn.text.train.features.wordllama`), ``ngram`` each document's n-gram TF-IDF
(:mod:`gfbgcn.text.train.features.ngrams`) and ``encoder`` each document's embedding by a
frozen sentence encoder (:mod:`gfbgcn.text.train.features.encoder`), as ``X = [I | F]``
(:class:`~gfbgcn.nn.models.FeatureTextGCN` computes layer 1 as ``Â (W1 + F W2)``).  The
document features computed from the texts come in as a :class:`DocInput`; :func:`node_features`
makes ``F`` of every node from it (or from the word vectors).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

from gfbgcn.core.errors import OptionError
from gfbgcn.text.graph.text_graph import TextGraph
from gfbgcn.text.params import FEATURE_KINDS
from gfbgcn.text.train.features.wordllama import (
    doc_word_weights,
    require_wordllama,
    weighted_means,
    word_vectors,
)

if TYPE_CHECKING:
    import torch


def require_features(kind: str) -> None:
    """Fail in one line, before any work, when ``kind`` is unknown or needs a missing extra."""
    if kind not in FEATURE_KINDS:
        raise OptionError("unknown {0} {kind!r}; choose one of {choices}", "features",
                          kind=kind, choices=", ".join(FEATURE_KINDS))
    if kind == "wordllama":
        require_wordllama()


@dataclass
class DocInput:
    """The documents' input rows of ``--features ngram`` or ``encoder`` and what computed them.

    ``rows``: ``[num_docs, f]`` rows of every document of the graph, in its order (sparse for
    n-grams, dense for encoder embeddings); ``source``: the fitted featuriser (kept with the
    model for new documents, see :class:`gfbgcn.nn.models.FeatureTextGCN`'s ``source``);
    ``seconds``: what computing them took (``--auto`` counts it in the candidate's time);
    ``word_rows``: ``[num_words, f]`` dense rows of the word nodes (None: zero rows)."""

    rows: sp.csr_matrix | np.ndarray
    source: Any = None
    seconds: float = 0.0
    word_rows: np.ndarray | None = None


def sparse_node_features(rows: sp.csr_matrix, num_nodes: int) -> torch.Tensor:
    """``[num_nodes, f]`` float32 torch sparse CSR: ``rows`` ``[D, f]`` first, then empty
    rows (the words)."""
    import torch

    rows = sp.csr_matrix(rows, dtype=np.float32)
    rows.sort_indices()
    if rows.shape[0] > num_nodes:
        raise ValueError(f"{rows.shape[0]} document rows for a graph of {num_nodes} nodes")
    crow = np.concatenate([rows.indptr, np.full(num_nodes - rows.shape[0], rows.indptr[-1])])
    # int32 indices where they fit, as Â's: less memory traffic in every product
    index = np.int32 if max(rows.nnz, rows.shape[1]) < 2 ** 31 else np.int64
    return torch.sparse_csr_tensor(torch.from_numpy(crow.astype(index)),
                                   torch.from_numpy(rows.indices.astype(index)),
                                   torch.from_numpy(rows.data), (num_nodes, rows.shape[1]))


def node_features(graph: TextGraph, kind: str, doc_input: DocInput | None = None
                  ) -> torch.Tensor | None:
    """``F`` ``[num_nodes, f]`` of the graph's nodes (documents first), or ``None`` for
    ``onehot`` (identity only); ``ngram`` and ``encoder``: the rows of ``doc_input``
    (required: :func:`gfbgcn.text.train.features.ngrams.ngram_input`,
    :func:`gfbgcn.text.train.features.encoder.encoder_input`)."""
    import torch

    require_features(kind)
    if kind == "onehot":
        return None
    if kind in ("ngram", "encoder"):
        if doc_input is None or doc_input.rows.shape[0] != graph.num_docs:
            raise ValueError(f"features {kind!r} need doc_input with one row per document of "
                             "the graph")
        if kind == "ngram":
            return sparse_node_features(sp.csr_matrix(doc_input.rows), graph.num_nodes)
        out = np.zeros((graph.num_nodes, doc_input.rows.shape[1]), dtype=np.float32)
        out[:graph.num_docs] = np.asarray(doc_input.rows)
        if doc_input.word_rows is not None:
            out[graph.num_docs:] = doc_input.word_rows
        return torch.from_numpy(out)
    words = word_vectors(graph.vocab)
    docs = weighted_means(doc_word_weights(graph), words)
    return torch.from_numpy(np.concatenate([docs, words]))


def check_features_fit(config: Any) -> None:
    """Refuse a :class:`~gfbgcn.text.train.config.TrainConfig` whose ``features`` cannot be used:
    unknown, extra missing, a whole model (sgc, gin), or mini-batch training with wordllama."""
    require_features(config.features)
    if config.features == "onehot":
        return
    if config.model in ("sgc", "gin"):
        raise OptionError("{0} {kind} applies to the two-layer models (gcn, gfb-*, fbp, "
                          "cbp, bp, sqrt), not to {model}", "features", kind=config.features,
                          model=config.model)
    if config.batch_size and config.features not in ("ngram",):
        raise OptionError("{0} {kind} trains full batch only in this version (drop {1})",
                          "features", "batch_size", kind=config.features)

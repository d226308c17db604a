"""Inductive prediction with a trained two-layer Text GCN: classify documents not in the graph.

Text GCN is transductive: every document is a node of the training graph.  A new document
``d`` is attached to that graph exactly as the builder would attach it (``docs/inductive.md``
derives every step):

* edges ``a_dw = tf(d, w) * idf_w`` to the known words ``w`` (raw count TF, the *training* IDF,
  as :func:`gfbgcn.text.graph.text_graph.tfidf_matrix`), plus the self-loop of
  ``Â = D^-1/2 (A + I) D^-1/2``; unknown words are ignored;
* ``deg_d = 1 + sum_w a_dw``; ``deg_w`` is the word's degree in the training graph (the new
  document does not perturb the training graph: adding it would raise ``deg_w`` by ``a_dw``,
  which changes every training node's normalisation; we keep the trained graph fixed);
* ``Â_dd = 1 / deg_d``, ``Â_dw = a_dw / sqrt(deg_d deg_w)``.

Layer 1 (identity features, ``H = ReLU(Â W1)``)::

    h_d = ReLU( Â_dd * e_d + sum_w Â_dw W1[w] )

``W1`` has no row for ``d``; ``e_d`` is the zero vector by default (the document's own free
embedding is unknown, so it contributes nothing) or the mean of the training documents' rows
(``self_embedding="mean"``).  Layer 2 is "per-node transform ``z_u = phi(h_u)``, aggregation,
then optional post-aggregation map and bias" for every second layer of
:mod:`gfbgcn.text.train.models` (``phi(h) = W h`` for GCN, ``W h + lambda GenVec(...)`` for GFB)::

    out_d = post( Â_dd z_d + sum_w Â_dw z_w ) + b,   z_d = phi(h_d),  z_w = phi(h_w)

with ``h_w`` the word's layer-1 output in the full training graph (stored with the model).
Everything is batched: a sparse ``[B, V]`` document-word matrix times dense word tables.

With input features (``X = [I | F]``, :mod:`gfbgcn.text.train.features`) the word tables
hold the words' rows of ``W1 + F W2``, and ``e_d`` gains ``F_d W2``: ``F_d`` the new document's
TF-IDF-weighted mean of its known words' vectors
(:class:`~gfbgcn.text.train.features.wordllama.WordFeatures`), its n-gram TF-IDF row from the
saved vocabulary and IDF (:class:`~gfbgcn.text.train.features.ngrams.NgramDocFeatures`), or its
embedding by the model's encoder (:class:`~gfbgcn.text.train.features.encoder.
EncoderDocFeatures`).
"""

from __future__ import annotations

import copy
import logging
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import scipy.sparse as sp
import torch
from torch import Tensor, nn
from torch_geometric.nn import GCNConv

from gfbgcn.nn.models.text_gcn import TwoLayerTextGCN
from gfbgcn.text.corpus.corpus import check_documents
from gfbgcn.text.graph.adjacency import node_degrees
from gfbgcn.text.graph.counts import doc_word_counts
from gfbgcn.text.graph.text_graph import TextGraph
from gfbgcn.text.tokenize.clean import (
    Tokenizer,
    textgcn_tokenize,
)
from gfbgcn.text.tokenize.preprocess import TokenizedCorpus, preprocess
from gfbgcn.text.tokenize.registry import resolve_tokenizer
from gfbgcn.text.train.features import InputFeatures, input_features
from gfbgcn.text.train.minibatch import exact_hidden, released_adjacency

log = logging.getLogger(__name__)


SELF_EMBEDDINGS = ("zero", "mean")


class NoKnownWordsWarning(UserWarning):
    """Some documents contain no word of the model's vocabulary."""


def node_transform(conv: nn.Module, h: Tensor) -> Tensor:
    """The second layer's per-node term ``z_u = phi(h_u)`` (before aggregation)."""
    if isinstance(conv, GCNConv):
        return conv.lin(h)
    node_features = getattr(conv, "node_features", None)
    if node_features is None:
        raise NotImplementedError(
            f"inductive prediction needs a per-node transform; {type(conv).__name__} has none"
        )
    return node_features(h)


def finish_aggregate(conv: nn.Module, out: Tensor) -> Tensor:
    """What the layer applies after aggregation: ``post_aggregate`` (e.g. square root), bias."""
    post = getattr(conv, "post_aggregate", None)
    if post is not None:
        out = post(out)
    bias = getattr(conv, "bias", None)
    if bias is not None:
        out = out + bias
    return out


@dataclass
class Predictions:
    """Result of :meth:`InductiveTextGCN.predict`.

    ``labels``: one label per document (single-label), or a list of labels per document
    (multi-label: those with probability >= ``threshold``); ``probabilities``: ``[B, C]``
    softmax (single-label) or sigmoid (multi-label) outputs, columns in ``label_names`` order;
    ``no_known_words``: documents with no vocabulary word (they get the training prior).
    """

    labels: list
    probabilities: np.ndarray
    label_names: list[str]
    no_known_words: np.ndarray
    multi_label: bool = False
    threshold: float | None = None

    def top_k(self, k: int) -> list[list[tuple[str, float]]]:
        """The ``k`` most probable ``(label, probability)`` pairs of every document."""
        k = max(1, min(k, len(self.label_names)))
        order = np.argsort(-self.probabilities, axis=1, kind="stable")[:, :k]
        return [
            [(self.label_names[j], float(self.probabilities[i, j])) for j in row]
            for i, row in enumerate(order)
        ]

    def __len__(self) -> int:
        return len(self.labels)


@dataclass
class InductiveTextGCN:
    """Everything needed to classify new text with a trained two-layer Text GCN.

    Word tables are indexed like ``vocab``; ``conv2`` is the trained second layer (eval mode).
    """

    vocab: list[str]
    idf: np.ndarray  # float64 [V] training IDF
    deg_words: Tensor  # [V] training degrees of the word nodes (1 + sum_j A_wj)
    w1_words: Tensor  # [V, hidden] word rows of W1
    h_words: Tensor  # [V, hidden] word rows of ReLU(Â W1) in the full training graph
    w1_doc_mean: Tensor  # [hidden] mean of the training documents' rows of W1
    conv2: nn.Module
    label_names: list[str]
    prior: np.ndarray  # [C] training label frequencies (probabilities for docs with no word)
    model_name: str
    tokenizer_name: str
    tokenizer: Tokenizer = field(repr=False, default=textgcn_tokenize)
    multi_label: bool = False
    threshold: float = 0.5
    self_embedding: str = "zero"
    features: InputFeatures | None = None  # input features (text/train/features/)

    def __post_init__(self) -> None:
        if self.self_embedding not in SELF_EMBEDDINGS:
            raise ValueError(f"self_embedding must be one of {SELF_EMBEDDINGS}")
        self.conv2.eval()
        v = len(self.vocab)
        for name in ("deg_words", "w1_words", "h_words"):
            if getattr(self, name).shape[0] != v:
                raise ValueError(f"{name} has {getattr(self, name).shape[0]} rows, vocabulary {v}")
        if len(self.idf) != v:
            raise ValueError(f"idf has {len(self.idf)} entries, vocabulary {v}")
        self._z_words: Tensor | None = None
        self._vocab_index = pd.Index(self.vocab)  # built once, not per predict call
        self._inv_sqrt_deg = self.deg_words.to(torch.float64).rsqrt().cpu().numpy()

    def __repr__(self) -> str:
        # a summary, not the fields: the vocabulary and word tables would print megabytes
        kind = ", multi-label" if self.multi_label else ""
        return (f"InductiveTextGCN(model={self.model_name!r}, words={len(self.vocab)}, "
                f"hidden={self.w1_words.shape[1]}, classes={len(self.label_names)}{kind}, "
                f"tokenizer={self.tokenizer_name!r}, device={self.device})")

    # -- placement ------------------------------------------------------------------------

    @property
    def device(self) -> torch.device:
        """Where the word tables and the second layer live (and new documents are scored)."""
        return self.w1_words.device

    def to(self, device: str | torch.device) -> InductiveTextGCN:
        """Move the word tables and the second layer to ``device`` (in place); returns self."""
        device = torch.device(device)
        for name in ("deg_words", "w1_words", "h_words", "w1_doc_mean"):
            setattr(self, name, getattr(self, name).to(device))
        self.conv2.to(device)
        if self.features is not None:
            self.features.to(device)
        self._z_words = None  # recomputed on the new device when first needed
        return self

    # -- construction ---------------------------------------------------------------------

    @classmethod
    def from_trained(
        cls,
        model: nn.Module,
        graph: TextGraph,
        model_name: str,
        *,
        adj: Tensor | None = None,
        tokenizer: Tokenizer | None = None,
        multi_label: bool = False,
        threshold: float = 0.5,
        prior: np.ndarray | None = None,
        self_embedding: str = "zero",
    ) -> InductiveTextGCN:
        """Extract the word tables of a trained :class:`~gfbgcn.nn.models.TwoLayerTextGCN`.

        ``model_name`` is its name in :data:`gfbgcn.text.train.models.MODELS` (how the second
        layer is rebuilt when the model is loaded).
        """
        if not isinstance(model, TwoLayerTextGCN):
            raise NotImplementedError(
                f"inductive prediction is implemented for the two-layer models (gcn, gfb-*, "
                f"fbp, cbp, bp, sqrt), not for {type(model).__name__} (sgc, gin)"
            )
        device = model.w1.device
        h = _hidden_outputs(model, graph, adj)
        deg = node_degrees(graph)
        graph.release_edges()  # the pages node_degrees read
        d = graph.num_docs
        train_docs = torch.from_numpy(np.flatnonzero(graph.is_train)).to(device)
        w1 = model.w1.detach()  # the free rows (documents: their self rows)
        with torch.no_grad():  # word rows of X W: W1 plus, with features, F W2
            w_words = model.input_weight()[d:].detach()
        return cls(
            vocab=list(graph.vocab),
            idf=np.asarray(graph.idf, dtype=np.float64),
            deg_words=torch.from_numpy(deg[d:]).to(device=device, dtype=w1.dtype),
            w1_words=w_words.clone(),
            h_words=h[d:].clone(),
            w1_doc_mean=(w1[train_docs].mean(0) if len(train_docs) else w1.new_zeros(w1.shape[1])),
            conv2=copy.deepcopy(model.conv2),  # a snapshot: later training does not leak in
            label_names=list(graph.label_names),
            prior=_training_prior(graph) if prior is None else np.asarray(prior, np.float64),
            model_name=model_name,
            tokenizer_name=graph.tokenizer,
            tokenizer=resolve_tokenizer(graph.tokenizer, tokenizer),
            multi_label=multi_label,
            threshold=threshold,
            self_embedding=self_embedding,
            features=input_features(model, d),
        )

    # -- the computation ------------------------------------------------------------------

    @property
    def z_words(self) -> Tensor:
        """``phi(h_w)`` of every word (second layer's per-node term), computed once."""
        if self._z_words is None:
            with torch.no_grad():
                self._z_words = node_transform(self.conv2, self.h_words)
        return self._z_words

    def tokenize(self, texts: Sequence[str]) -> TokenizedCorpus:
        """Texts as ids of the model's vocabulary (unknown words dropped)."""
        return preprocess(list(texts), self.tokenizer, vocab=self.vocab,
                          vocab_index=self._vocab_index, stop_words=None)

    def doc_word_weights(self, texts: Sequence[str]) -> sp.csr_matrix:
        """``a_dw = tf(d, w) * idf_w`` ``[B, V]`` with the training IDF (zeros dropped)."""
        a = doc_word_counts(self.tokenize(texts)).multiply(self.idf[None, :]).tocsr()
        a.eliminate_zeros()  # words with idf 0 (in every training document) have no edge
        return a

    def logits_from_weights(self, a: sp.csr_matrix, self_rows: Tensor | None = None,
                            texts: Sequence[str] | None = None) -> Tensor:
        """Logits ``[B, C]`` of documents with doc-word weights ``a`` ``[B, V]`` (``texts``:
        the documents themselves, which n-gram input features are computed from).

        ``self_rows`` ``[B, hidden]`` replaces the unknown ``W1[d]`` (default: zero or the mean
        training-document row, per ``self_embedding``); passing a training document's own row
        with the training graph's weights reproduces the transductive output exactly.
        """
        a = sp.csr_matrix(a, dtype=np.float64)
        row = np.repeat(np.arange(a.shape[0]), np.diff(a.indptr))
        deg_d = 1.0 + np.bincount(row, weights=a.data, minlength=a.shape[0])  # 1 + sum_w a_dw
        inv_sqrt_d = 1.0 / np.sqrt(deg_d)
        # Â_dw = a_dw / sqrt(deg_d deg_w), scaling the stored entries (no diagonal products)
        a_hat = sp.csr_matrix(
            (a.data * inv_sqrt_d[row] * self._inv_sqrt_deg[a.indices], a.indices, a.indptr),
            shape=a.shape,
        )
        dtype, device = self.w1_words.dtype, self.device
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # torch's "sparse CSR is beta" notes
            a_t = torch.sparse_csr_tensor(
                torch.from_numpy(a_hat.indptr.astype(np.int64)),
                torch.from_numpy(a_hat.indices.astype(np.int64)),
                torch.from_numpy(a_hat.data).to(dtype),
                size=a_hat.shape,
            ).to(device)  # built on the host (SciPy), one copy per batch
        self_w = torch.from_numpy(1.0 / deg_d).to(device=device, dtype=dtype).unsqueeze(1)  # Â_dd
        if self_rows is None:
            if self.self_embedding == "mean":
                self_rows = self.w1_doc_mean.unsqueeze(0).expand(a.shape[0], -1)
            if self.features is not None:  # the document's feature part, F_d W2
                part = self.features.doc_rows(a, texts)
                self_rows = part if self_rows is None else self_rows + part
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # torch's "sparse CSR is beta"
            pre = a_t @ self.w1_words  # sum_w Â_dw W1[w]
            if self_rows is not None:
                pre = pre + self_w * self_rows.to(device=device, dtype=dtype)
            h_d = torch.relu(pre)  # layer 1
            z_d = node_transform(self.conv2, h_d)
            out = self_w * z_d + a_t @ self.z_words  # Â_dd z_d + sum_w Â_dw z_w
            return finish_aggregate(self.conv2, out)

    def _probabilities(self, logits: Tensor) -> np.ndarray:
        if self.multi_label:
            return torch.sigmoid(logits).cpu().numpy().astype(np.float64)
        return torch.softmax(logits, dim=1).cpu().numpy().astype(np.float64)

    def predict_proba(self, texts: Sequence[str] | str, batch_size: int = 4096) -> np.ndarray:
        """``[B, C]`` class probabilities (softmax; sigmoid per label when multi-label)."""
        return self._predict(texts, batch_size)[0]

    def _predict(
        self, texts: Sequence[str] | str, batch_size: int
    ) -> tuple[np.ndarray, np.ndarray]:
        texts = check_documents([texts] if isinstance(texts, str) else texts)
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        probs = np.empty((len(texts), len(self.label_names)), dtype=np.float64)
        empty = np.zeros(len(texts), dtype=bool)
        for start in range(0, len(texts), batch_size):
            chunk = texts[start : start + batch_size]
            a = self.doc_word_weights(chunk)
            p = self._probabilities(self.logits_from_weights(a, texts=chunk))
            no_word = np.diff(a.indptr) == 0
            p[no_word] = self.prior
            probs[start : start + len(chunk)] = p
            empty[start : start + len(chunk)] = no_word
        if empty.any():
            first = int(np.flatnonzero(empty)[0])
            warnings.warn(
                f"{int(empty.sum())} of {len(texts)} document(s) contain no word of the "
                f"model's vocabulary (e.g. index {first}); they get the training label "
                "frequencies as probabilities",
                NoKnownWordsWarning,
                stacklevel=3,
            )
        return probs, empty

    def predict(self, texts: Sequence[str] | str, batch_size: int = 4096) -> Predictions:
        """Labels and probabilities of ``texts`` (a string or a list of strings)."""
        probs, empty = self._predict(texts, batch_size)
        names = self.label_names
        if self.multi_label:
            labels: list = [
                [names[j] for j in np.flatnonzero(row >= self.threshold)] for row in probs
            ]
        else:
            labels = [names[j] for j in probs.argmax(axis=1)] if len(probs) else []
        return Predictions(
            labels=labels,
            probabilities=probs,
            label_names=list(names),
            no_known_words=empty,
            multi_label=self.multi_label,
            threshold=self.threshold if self.multi_label else None,
        )


def _hidden_outputs(model: TwoLayerTextGCN, graph: TextGraph, adj: Tensor | None) -> Tensor:
    """Layer-1 outputs ``[N, hidden]`` of every node of the training graph, in eval mode."""
    # Â from the edge arrays as the mini-batch trainer builds it (int32 indices where they
    # fit, the edges' pages released after: a 383k-document graph's are 2.9 GiB)
    adj = released_adjacency(graph, adj)
    # in row blocks of Â, as the mini-batch trainer's exact evaluation: the temporaries of one
    # block, not of the whole product (eval mode: no dropout)
    was_training = model.training
    model.eval()
    h = exact_hidden(model, adj).to(model.w1.device)
    model.train(was_training)
    return h


def _training_prior(graph: TextGraph) -> np.ndarray:
    """Label frequencies ``[C]`` of the training documents (the answer for a document with no
    known word)."""
    counts = np.bincount(graph.labels[graph.is_train], minlength=len(graph.label_names))
    return counts.astype(np.float64) / max(float(counts.sum()), 1.0)


def predict_texts(
    model: nn.Module, graph: TextGraph, model_name: str, texts: Sequence[str], **kwargs
) -> Predictions:
    """One-shot helper: ``InductiveTextGCN.from_trained(model, graph, model_name)``'s
    predictions for ``texts``."""
    return InductiveTextGCN.from_trained(model, graph, model_name, **kwargs).predict(texts)


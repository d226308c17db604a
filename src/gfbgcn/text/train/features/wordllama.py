"""Pretrained word vectors as node input (``features="wordllama"``).

``--features wordllama`` keeps the paper's identity input and appends a fixed 256-d vector per
node, ``X = [I | F]`` (:class:`~gfbgcn.nn.models.FeatureTextGCN` computes layer 1 as
``Â (W1 + F W2)``):

* a **word** node's vector is the word embedded by WordLlama (``wordllama`` on PyPI, MIT; the
  ``l2_supercat`` 256-d static token embeddings: one vector per token of the Llama 2
  SentencePiece tokenizer, 32,000 sub-word tokens, built from the token-embedding tables of
  Llama-2-family LLMs and trained as an average-pooling text embedder).  A word
  the tokenizer splits into several pieces gets the mean of their vectors (WordLlama's own
  ``embed``, average pooling), then the vector is scaled to unit length: WordLlama is trained
  for cosine similarity, and unit rows make the feature part's scale the same for every word;
* a **document** node's vector is the TF-IDF-weighted mean of its words' vectors, with
  exactly the weights of its document-word edges in the graph (``tf * idf``), normalised to
  sum to 1; a document with no word left gets zeros.  TF-IDF rather than a plain mean because
  kept stop words (``--auto`` tries stop words on) would otherwise pull every document towards
  the same "function word" direction, and because the weights are then those a new document
  gets at prediction time from the saved IDF (:mod:`gfbgcn.text.predict.inductive`): training and
  prediction compute the feature identically.

Both weight files ship inside the ``wordllama`` wheel and are read from the installed package
(:func:`load_wordllama`); nothing is downloaded at run time.  ``WordLlama.load()`` itself is
not used: in wordllama 0.4.0.post1 it looks for the tokenizer under ``wordllama/tokenizer/``
while the wheel ships it under ``wordllama/tokenizers/``, and then downloads it from Hugging
Face.  The extra: ``pip install 'gfbgcn[embeddings]'``.
"""

from __future__ import annotations

import functools
import importlib.util
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

from gfbgcn.core.errors import MissingExtraError
from gfbgcn.core.extras import install_hint
from gfbgcn.nn.models import FeatureTextGCN
from gfbgcn.text.graph.text_graph import TextGraph

if TYPE_CHECKING:
    import torch

WORDLLAMA_CONFIG = "l2_supercat"
WORDLLAMA_DIM = 256
INSTALL_HINT = install_hint("embeddings")


def wordllama_available() -> bool:
    """The ``embeddings`` extra (the ``wordllama`` package) is installed."""
    return importlib.util.find_spec("wordllama") is not None


def require_wordllama() -> None:
    """Fail in one line, before any work, when the ``embeddings`` extra is missing."""
    if not wordllama_available():
        raise MissingExtraError(f"the wordllama features need the optional 'embeddings' extra "
                                f"(the wordllama package): {INSTALL_HINT}")


@functools.lru_cache(maxsize=1)
def load_wordllama() -> Any:
    """WordLlama's inference object from the files inside the installed wheel (no download)."""
    require_wordllama()
    from importlib.resources import files

    from safetensors.numpy import load_file
    from tokenizers import Tokenizer

    WordLlamaInference = _import_quietly()
    root = files("wordllama")
    weights = root / "weights" / f"{WORDLLAMA_CONFIG}_{WORDLLAMA_DIM}.safetensors"
    tokenizer = root / "tokenizers" / f"{WORDLLAMA_CONFIG}_tokenizer_config.json"
    for path in (weights, tokenizer):
        if not path.is_file():
            raise MissingExtraError(f"the installed wordllama lacks {path.name}; reinstall it: "
                                    f"{INSTALL_HINT}")
    table = load_file(str(weights))["embedding.weight"]
    return WordLlamaInference(table, Tokenizer.from_file(str(tokenizer)))


def _import_quietly() -> type:
    """``wordllama.WordLlamaInference``, undoing what importing wordllama does to logging: its
    ``__init__`` calls ``logging.basicConfig(level=INFO)``, which would make every library's
    INFO messages print on standard error for the rest of the process."""
    import logging

    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        from wordllama import WordLlamaInference
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
    return WordLlamaInference


def wordllama_info() -> dict[str, Any]:
    """What a model trained on these features records about them."""
    from importlib.metadata import version

    return {"kind": "wordllama", "package_version": version("wordllama"),
            "config": WORDLLAMA_CONFIG, "dim": WORDLLAMA_DIM,
            "word": "unit-length mean of the word's sub-word token vectors",
            "document": "TF-IDF-weighted mean of its words' vectors"}


def word_vectors(words: list[str], batch_size: int = 512) -> np.ndarray:
    """``[V, 256]`` float32 unit-length WordLlama vectors of ``words`` (zero rows stay zero).

    Deterministic and independent of ``batch_size`` (average pooling over each word's own
    tokens; padding is masked)."""
    model = load_wordllama()
    if not words:
        return np.zeros((0, WORDLLAMA_DIM), dtype=np.float32)
    vectors = np.asarray(model.embed(list(words), batch_size=batch_size), dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.maximum(norms, 1e-12)


def weighted_means(weights: sp.csr_matrix, vectors: np.ndarray) -> np.ndarray:
    """Row ``i``: ``sum_w weights[i, w] vectors[w] / sum_w weights[i, w]`` (zeros for an
    empty row); ``weights`` ``[B, V]`` non-negative, ``vectors`` ``[V, f]``."""
    w = sp.csr_matrix(weights, dtype=np.float64)
    totals = np.asarray(w.sum(axis=1)).ravel()
    scale = np.divide(1.0, totals, out=np.zeros_like(totals), where=totals > 0)
    # normalised in float64, multiplied in float32: no float64 copy of the [V, f] table
    shares = (sp.diags(scale) @ w).astype(np.float32)
    return np.asarray(shares @ np.asarray(vectors, dtype=np.float32), dtype=np.float32)


def doc_word_weights(graph: TextGraph) -> sp.csr_matrix:
    """The graph's document-word TF-IDF edges as a ``[D, V]`` matrix."""
    src, dst = graph.edge_index
    d = graph.num_docs
    keep = (src < d) & (dst >= d)
    return sp.csr_matrix((graph.edge_weight[keep].astype(np.float64), (src[keep], dst[keep] - d)),
                         shape=(d, graph.num_words))


@dataclass
class WordFeatures:
    """The feature part of a trained model for new documents (:mod:`gfbgcn.text.predict.inductive`):
    the words' vectors ``F_w`` ``[V, f]`` and ``W2`` ``[f, hidden]``.  A new document's part
    of layer 1 is ``F_d W2`` with ``F_d`` the TF-IDF-weighted mean of its known words'
    vectors, as for the training documents (:func:`node_features`)."""

    vectors: torch.Tensor  # [V, f] word rows of F
    w2: torch.Tensor  # [f, hidden]
    info: dict[str, Any] = field(default_factory=dict)  # kind, source (wordllama_info)

    @classmethod
    def from_model(cls, model: Any, num_docs: int) -> WordFeatures | None:
        """Those of a trained :class:`~gfbgcn.nn.models.FeatureTextGCN` on word vectors (None
        for others, and for document features computed from the texts, whose ``source`` is
        their featuriser: :mod:`gfbgcn.text.train.features.ngrams`,
        :mod:`gfbgcn.text.train.features.encoder`)."""
        if not isinstance(model, FeatureTextGCN) or model.sparse_features \
                or model.source is not None:
            return None
        return cls(model.features[num_docs:].detach().clone(), model.w2.detach().clone(),
                   wordllama_info())

    def to(self, device: Any) -> WordFeatures:
        """Move ``W2`` to ``device``; the word vectors stay on the host, where the documents'
        weighted means are computed (SciPy), so no copy of them is made per batch."""
        self.vectors, self.w2 = self.vectors.cpu(), self.w2.to(device)
        return self

    def doc_rows(self, weights: sp.csr_matrix, texts: Sequence[str] | None = None
                 ) -> torch.Tensor:
        """``F_d W2`` ``[B, hidden]`` of documents with doc-word weights ``[B, V]`` (their
        ``texts`` are not needed: the words' vectors give ``F_d``)."""
        import torch

        means = weighted_means(weights, self.vectors.cpu().numpy())  # no copy on the host
        f_d = torch.from_numpy(means).to(device=self.w2.device, dtype=self.w2.dtype)
        return f_d @ self.w2

    def tensors(self) -> dict[str, torch.Tensor]:
        """What a saved model stores (:mod:`gfbgcn.text.predict.saved`)."""
        return {"feature_words": self.vectors, "feature_w2": self.w2}

    @classmethod
    def from_saved(cls, tensors: dict[str, torch.Tensor], entry: dict[str, Any] | None,
                   vocab_size: int, hidden: int) -> WordFeatures | None:
        """The features of a loaded model directory (``entry``: its ``features`` config);
        ``None`` for a one-hot model.  Shapes are checked: ``ValueError`` names the problem."""
        if not entry or entry.get("kind", "onehot") == "onehot":
            return None
        missing = [k for k in ("feature_words", "feature_w2") if k not in tensors]
        if missing:
            raise ValueError(f"features {entry.get('kind')!r} recorded but tensors {missing} "
                             "are missing")
        vectors, w2 = tensors["feature_words"], tensors["feature_w2"]
        f = vectors.shape[1] if vectors.dim() == 2 else -1
        if vectors.dim() != 2 or vectors.shape[0] != vocab_size or list(w2.shape) != [f, hidden]:
            raise ValueError(f"feature tensors have shapes {list(vectors.shape)} and "
                             f"{list(w2.shape)}, expected [{vocab_size}, f] and [f, {hidden}]")
        return cls(vectors, w2, dict(entry))

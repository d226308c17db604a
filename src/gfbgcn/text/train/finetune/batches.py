"""The documents as the encoder reads them while it is fine-tuned, and its forward with gradients.

Each document is tokenized once, before training, into one window of at most ``max_length``
tokens (its first tokens, special tokens included: :func:`gfbgcn.text.encoder.windows.
token_windows` with one window kept), lower-cased first where the encoder's own settings say
so.  A step pads its batch to the batch's longest window and pools the last hidden states as
the frozen encoder does (:func:`gfbgcn.text.encoder.pooling.pool`), then normalises where the
encoder normalises: the same vector that :meth:`SentenceEncoder.embed` gives in evaluation
mode, up to float rounding, but with gradients.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

from gfbgcn.text.encoder.embed import SentenceEncoder
from gfbgcn.text.encoder.pooling import pool
from gfbgcn.text.encoder.windows import token_windows

__all__ = ["TokenizedDocuments", "encode", "tokenize_documents"]


@dataclass
class TokenizedDocuments:
    """One token window per document: ``windows[i]`` the ids of document ``i`` (special
    tokens included), ``lengths`` ``[n]`` int64 their lengths, ``pad_id`` the padding id."""

    windows: list[list[int]]
    lengths: np.ndarray
    pad_id: int

    def padded(self, docs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(ids, mask)`` of the documents ``docs`` ``[B]``: ``[B, width]`` int64 ids padded
        to the longest of them, and the attention mask (1: a token, 0: padding), int64."""
        lengths = self.lengths[docs]
        width = int(lengths.max()) if len(docs) else 0
        ids = np.full((len(docs), width), self.pad_id, dtype=np.int64)
        for row, doc in enumerate(docs):  # one copy per document, not per token
            ids[row, :lengths[row]] = self.windows[doc]
        mask = (np.arange(width)[None, :] < lengths[:, None]).astype(np.int64)
        return ids, mask


def tokenize_documents(encoder: SentenceEncoder, texts: Sequence[str], max_length: int
                       ) -> TokenizedDocuments:
    """The first window of at most ``max_length`` tokens of every text (see the module
    docstring); every text has one, an empty text its special tokens alone."""
    texts = [t.lower() for t in texts] if encoder.lowercase else list(texts)
    windows, owner = token_windows(encoder.tokenizer, texts, max_length, 1)
    if len(windows) != len(texts) or not np.array_equal(owner, np.arange(len(texts))):
        raise RuntimeError("the tokenizer did not give one window per document")
    lengths = np.fromiter((len(w) for w in windows), dtype=np.int64, count=len(windows))
    return TokenizedDocuments(windows, lengths, encoder.pad_id)


def encode(encoder: SentenceEncoder, model: torch.nn.Module, ids: np.ndarray, mask: np.ndarray
           ) -> torch.Tensor:
    r"""The embeddings ``[B, dim]`` float32 of one padded batch (``ids``, ``mask`` ``[B,
    width]``) through ``model`` (the encoder being trained, in whatever mode it is in), pooled
    as ``encoder`` pools and, where it normalises, of unit length:

    .. math::
        e_i = \frac{\mathrm{pool}(H_i)}{\max(\lVert \mathrm{pool}(H_i) \rVert, 10^{-12})}.
    """
    device = encoder.device
    input_ids = torch.from_numpy(ids).to(device)
    attention = torch.from_numpy(mask).to(device)
    hidden = model(input_ids=input_ids, attention_mask=attention).last_hidden_state
    pooled = pool(hidden.float(), attention, encoder.identity.pooling)
    return F.normalize(pooled, dim=1, eps=1e-12) if encoder.identity.normalize else pooled

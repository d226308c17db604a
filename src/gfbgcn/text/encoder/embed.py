"""A loaded, frozen sentence encoder and how it embeds documents.

Documents are cut into token windows (:mod:`gfbgcn.text.encoder.windows`), the windows sorted
by length and run through the model in batches padded to their own longest window (little
padding, so little wasted work), pooled (:mod:`gfbgcn.text.encoder.pooling`) and put back in
document order.  In ``chunks`` mode a document's vector is the mean of its windows' vectors
weighted by their content tokens, taken before the normalisation.  A text's vector does not
depend on the other texts of the call (padding is masked), up to float rounding.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from gfbgcn.core.errors import DocumentTypeError
from gfbgcn.core.progress import progress_bar
from gfbgcn.core.validate import check_option
from gfbgcn.text.encoder.identity import CHUNKS, EncoderIdentity
from gfbgcn.text.encoder.pooling import pool
from gfbgcn.text.encoder.source import EncoderLoadError
from gfbgcn.text.encoder.windows import token_windows

__all__ = ["DEFAULT_BATCH_SIZE", "SentenceEncoder", "check_texts"]

#: Windows per forward pass: on a CPU larger batches gain little once the windows are sorted
#: by length, and a batch of 512-token windows of a base model stays within ~1 GiB.
DEFAULT_BATCH_SIZE = 32
#: Documents tokenized at once: bounds the token lists held in memory and sets how often the
#: progress bar moves on a long corpus, while sorting within a group pads almost as little as
#: sorting the whole corpus would.
GROUP = 4096


def check_texts(texts: Sequence[Any]) -> list[str]:
    """``texts`` as a list, each checked to be a string (a one-line error naming the first
    that is not: ``None``, NaN from an empty pandas cell, bytes)."""
    texts = list(texts)
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise DocumentTypeError(f"document {i} is not a string ({type(text).__name__}: "
                                    f"{text!r:.40})")
    return texts


class SentenceEncoder:
    """A frozen transformer encoder with its tokenizer, pooling and budget (made by
    :func:`gfbgcn.text.encoder.model.load_encoder`).

    Attributes:
        identity: what the embeddings depend on (the cache and a saved model use it).
        tokenizer: the fast tokenizer (transformers).
        model: the transformer (eval mode, no gradients) on ``device``.
        device: where the model runs.
        lowercase: texts are lower-cased before tokenizing (the model's own setting).
        special_tokens: special tokens the tokenizer adds to each window.
    """

    def __init__(self, identity: EncoderIdentity, tokenizer: Any, model: torch.nn.Module,
                 device: torch.device, *, lowercase: bool = False) -> None:
        self.identity, self.tokenizer, self.model = identity, tokenizer, model
        self.device, self.lowercase = device, lowercase
        self.special_tokens = int(tokenizer.num_special_tokens_to_add(pair=False))
        self.pad_id = int(tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0)

    @property
    def dim(self) -> int:
        """The embedding width."""
        return self.identity.dim

    def __repr__(self) -> str:
        i = self.identity
        return (f"SentenceEncoder({i.name!r}, dim={i.dim}, pooling={i.pooling}, "
                f"max_length={i.max_length}, long_documents={i.long_documents})")

    def embed(self, texts: Sequence[str], *, batch_size: int = DEFAULT_BATCH_SIZE,
              progress: bool = False) -> np.ndarray:
        """Embed ``texts`` (no cache: see :func:`gfbgcn.text.encoder.embed_documents`).

        Args:
            texts: the documents, ``n`` strings.
            batch_size: windows per forward pass.
            progress: show a progress bar over the documents.

        Returns:
            ``[n, dim]`` float32, row ``i`` the vector of ``texts[i]`` (unit length where the
            encoder normalises).
        """
        texts = check_texts(texts)
        check_option("batch_size", batch_size, 1, whole=True)
        if self.lowercase:
            texts = [t.lower() for t in texts]
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        keep = self.identity.max_chunks if self.identity.long_documents == CHUNKS else 1
        with progress_bar(total=len(texts), show=progress, unit="doc", desc="embedding",
                  leave=False) as bar:
            for start in range(0, len(texts), GROUP):
                group = texts[start:start + GROUP]
                windows, owner = token_windows(self.tokenizer, group, self.identity.max_length,
                                               keep)
                vectors = self._run(windows, owner, batch_size, bar)
                out[start:start + len(group)] = self._documents(vectors, windows, owner,
                                                                len(group))
        bad = np.count_nonzero(~np.isfinite(out).all(axis=1))
        if bad:
            raise EncoderLoadError(f"encoder {self.identity.name}: the model gave vectors that "
                                   f"are not finite for {bad} of {len(texts)} documents (are "
                                   "its weights intact?)")
        if self.identity.normalize:
            out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)
        return out

    def _run(self, windows: list[list[int]], owner: np.ndarray, batch_size: int,
             bar: Any) -> np.ndarray:
        """The pooled vector of every window, ``[windows, dim]`` float32; the bar advances by
        the documents whose last window is done."""
        lengths = np.fromiter((len(w) for w in windows), dtype=np.int64, count=len(windows))
        order = np.argsort(lengths, kind="stable")
        left = np.bincount(owner, minlength=int(owner.max()) + 1 if owner.size else 0)
        vectors = np.empty((len(windows), self.dim), dtype=np.float32)
        for start in range(0, len(order), batch_size):
            batch = order[start:start + batch_size]
            width = int(lengths[batch].max())
            ids = np.full((len(batch), width), self.pad_id, dtype=np.int64)
            for row, w in enumerate(batch):  # one copy per window, not per token
                ids[row, :lengths[w]] = windows[w]
            mask = np.arange(width)[None, :] < lengths[batch][:, None]
            vectors[batch] = self._forward(ids, mask)
            np.subtract.at(left, owner[batch], 1)
            bar.update(int(np.count_nonzero(left[np.unique(owner[batch])] == 0)))
        return vectors

    def _forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Pooled vectors ``[batch, dim]`` float32 of one padded batch ``ids`` ``[batch,
        width]`` with attention ``mask`` (bool, the same shape)."""
        input_ids = torch.from_numpy(ids).to(self.device)
        attention = torch.from_numpy(mask.astype(np.int64)).to(self.device)
        with torch.inference_mode():
            hidden = self.model(input_ids=input_ids, attention_mask=attention).last_hidden_state
            pooled = pool(hidden.float(), attention, self.identity.pooling)
        return pooled.cpu().numpy().astype(np.float32, copy=False)

    def _documents(self, vectors: np.ndarray, windows: list[list[int]], owner: np.ndarray,
                   n: int) -> np.ndarray:
        """Document vectors ``[n, dim]`` from window ``vectors``: the mean weighted by each
        window's content tokens (a document of one window gets that window's vector, bit for
        bit: its weight is exactly 1)."""
        if len(windows) == n:  # one window each (truncate mode, or short documents)
            return vectors
        content = np.fromiter((len(w) for w in windows), dtype=np.float64,
                              count=len(windows)) - self.special_tokens
        weight = np.maximum(content, 1.0)
        weight /= np.bincount(owner, weights=weight, minlength=n)[owner]
        # a document's windows are consecutive (token_windows), and every document has one
        starts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
        docs = np.add.reduceat(vectors.astype(np.float64) * weight[:, None], starts, axis=0)
        return docs.astype(np.float32)

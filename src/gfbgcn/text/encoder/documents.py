"""Documents to embeddings through the cache: only texts never embedded before run the model."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from gfbgcn.core.validate import check_option
from gfbgcn.text.encoder.cache import DIGEST_BYTES, EmbeddingCache
from gfbgcn.text.encoder.embed import DEFAULT_BATCH_SIZE, SentenceEncoder, check_texts

__all__ = ["embed_documents", "text_digests"]


def text_digests(texts: Sequence[str]) -> np.ndarray:
    """The sha256 of each text's UTF-8 bytes, ``[n, 32]`` uint8 (lone surrogates, which
    UTF-8 cannot encode, kept as they are: ``surrogatepass``)."""
    joined = b"".join(hashlib.sha256(t.encode("utf-8", "surrogatepass")).digest()
                      for t in texts)
    return np.frombuffer(joined, dtype=np.uint8).reshape(len(texts), DIGEST_BYTES).copy()


def embed_documents(encoder: SentenceEncoder, texts: Sequence[str], *,
                    cache: bool | EmbeddingCache = True, batch_size: int = DEFAULT_BATCH_SIZE,
                    progress: bool = False) -> np.ndarray:
    """The embeddings of ``texts``, from the cache where it has them.

    The texts the cache lacks are embedded (each distinct text once) and stored as one new
    shard; the rows come back in the order of ``texts``.

    Args:
        encoder: a loaded encoder (:func:`gfbgcn.text.encoder.load_encoder`).
        texts: ``n`` documents.
        cache: ``True``: the default cache (``$GFBGCN_CACHE/embeddings``); ``False``: none; or
            an :class:`EmbeddingCache` (another root).
        batch_size: windows per forward pass.
        progress: a progress bar over the documents embedded.

    Returns:
        ``[n, dim]`` float32.
    """
    texts = check_texts(texts)
    check_option("batch_size", batch_size, 1, whole=True)
    store = cache if isinstance(cache, EmbeddingCache) else (
        EmbeddingCache(encoder.identity) if cache else None)
    if store is not None and store.identity.key() != encoder.identity.key():
        raise ValueError("the cache was opened for another encoder identity")
    digests = text_digests(texts)
    if store is None:
        rows = np.zeros((len(texts), encoder.dim), dtype=np.float32)
        found = np.zeros(len(texts), dtype=bool)
    else:
        rows, found = store.lookup(digests)
    missing = np.flatnonzero(~found)
    if missing.size:
        keys = digests[missing].view(f"S{DIGEST_BYTES}").ravel()
        _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        new = encoder.embed([texts[i] for i in missing[first]], batch_size=batch_size,
                            progress=progress)
        rows[missing] = new[inverse.ravel()]
        if store is not None:
            store.store(digests[missing[first]], new)
    return rows

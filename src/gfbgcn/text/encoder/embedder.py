"""The embedding function of a recorded encoder, as the models that use one hold it.

A linear model or graph features fitted on an encoder's embeddings keep, to embed new
documents, an :class:`Embedder`: the encoder's record (:class:`EncoderIdentity`), the
directory or name to load it from and the device.  It loads the encoder on first use (both
parts of a combined model hold the same embedder, so they share it), checks that what it
loaded is the recorded encoder, and embeds without the on-disk cache.  It pickles as its record
alone (a fitted classifier pickled by joblib takes no model weights along), and loads the
encoder again where it is unpickled.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from gfbgcn.text.encoder.documents import embed_documents
from gfbgcn.text.encoder.embed import SentenceEncoder
from gfbgcn.text.encoder.identity import EncoderIdentity
from gfbgcn.text.encoder.model import load_encoder
from gfbgcn.text.encoder.source import EncoderLoadError

__all__ = ["Embedder"]

class Embedder:
    """``embedder(texts)`` ``[n, dim]``: the texts embedded by the recorded encoder.

    Args:
        identity: the encoder's record (as saved).
        name: where to load it from (default: the record's ``name``).
        device: where it runs.
        encoder: the encoder itself, when the caller has just loaded it (checked too).
        bundled: the encoder exists only here (fine-tuned): a model that uses it saves its
            files beside its own (:func:`gfbgcn.text.encoder.save.save_encoder`).
    """

    def __init__(self, identity: EncoderIdentity, name: str | None = None,
                 device: str | torch.device = "cpu",
                 encoder: SentenceEncoder | None = None, bundled: bool = False) -> None:
        self.identity, self.name, self.device = identity, name or identity.name, str(device)
        self.bundled = bundled
        self._last: tuple[list[str], np.ndarray] | None = None
        self._encoder: SentenceEncoder | None = None
        if encoder is not None:
            self._check(encoder)
            self._encoder = encoder

    def _check(self, encoder: SentenceEncoder) -> None:
        if encoder.identity.key() != self.identity.key():
            raise EncoderLoadError(
                f"encoder {self.name} is not the recorded one (digest "
                f"{encoder.identity.digest[:12]}..., recorded {self.identity.digest[:12]}...; or "
                "another pooling, width or token budget): give the same encoder files")

    def encoder(self) -> SentenceEncoder:
        """The encoder, loaded (and checked) on the first call."""
        if self._encoder is None:
            s = self.identity
            loaded = load_encoder(self.name, device=self.device, max_length=s.max_length,
                                  long_documents=s.long_documents, max_chunks=s.max_chunks)
            self._check(loaded)
            self._encoder = loaded
        return self._encoder

    def __call__(self, texts: list[str]) -> np.ndarray:
        """The texts' embeddings; the same list of texts twice in a row is embedded once (a
        combined predictor asks for a batch for its graph part, then for its linear part)."""
        texts = list(texts)
        if self._last is None or self._last[0] != texts:
            self._last = texts, embed_documents(self.encoder(), texts, cache=False)
        return self._last[1]

    def __getstate__(self) -> dict[str, Any]:
        if self.bundled:  # its weights are nowhere else: they go along
            return {**self.__dict__, "_last": None}
        return {"identity": self.identity, "name": self.name, "device": self.device,
                "bundled": False}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update({"_last": None, "_encoder": None, **state})

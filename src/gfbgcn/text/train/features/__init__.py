"""Input features of the text models beside the identity, by ``features`` kind: one-hot
only (the paper), pretrained word vectors (:mod:`~gfbgcn.text.train.features.wordllama`), the
documents' n-gram TF-IDF (:mod:`~gfbgcn.text.train.features.ngrams`) or their embeddings by a
frozen sentence encoder (:mod:`~gfbgcn.text.train.features.encoder`); what each gives a node
(:mod:`~gfbgcn.text.train.features.inputs`), and the feature part a trained or saved model
keeps for new documents (:func:`input_features`, :func:`saved_features`).
"""

from __future__ import annotations

from typing import Any

import torch

from gfbgcn.text.train.features.encoder import EncoderDocFeatures
from gfbgcn.text.train.features.ngrams import NgramDocFeatures
from gfbgcn.text.train.features.wordllama import WordFeatures

#: The feature part of a model for new documents, by kind.
InputFeatures = WordFeatures | NgramDocFeatures | EncoderDocFeatures


def input_features(model: Any, num_docs: int) -> InputFeatures | None:
    """The feature part of a trained two-layer model (None: identity input only)."""
    return (EncoderDocFeatures.from_model(model) or NgramDocFeatures.from_model(model)
            or WordFeatures.from_model(model, num_docs))


def saved_features(tensors: dict[str, torch.Tensor], entry: dict[str, Any] | None,
                   vocab_size: int, hidden: int, encoder: dict[str, Any] | None = None
                   ) -> InputFeatures | None:
    """The feature part of a loaded model directory (``entry``: its ``features`` config;
    ``encoder``: its encoder's record, needed by ``features="encoder"``)."""
    if entry and entry.get("kind") == "ngram":
        return NgramDocFeatures.from_saved(tensors, entry, hidden)
    if entry and entry.get("kind") == "encoder":
        if encoder is None:
            raise ValueError("features 'encoder' recorded but the model names no encoder")
        return EncoderDocFeatures.from_saved(tensors, entry, hidden, encoder)
    return WordFeatures.from_saved(tensors, entry, vocab_size, hidden)

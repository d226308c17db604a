"""The frozen encoder a saved model embeds new documents with: its record, and loading it back.

A model that uses a sentence encoder (graph document features ``encoder``, or a linear part
with the encoder's embeddings: :mod:`gfbgcn.text.linear.encoder`) keeps the encoder's record in
its ``config.json`` (``encoder``: :meth:`gfbgcn.text.encoder.EncoderIdentity.to_dict`: the
directory or name, the digest of its files, pooling, normalisation, token budget,
long-document mode, width), never the encoder itself.  Loading the model loads the encoder
from that directory or name, or from the one the caller gives instead (``encoder=``, ``gfbgcn
predict --encoder``: the same files moved elsewhere), and refuses in one line an encoder that
is missing, unreadable or not the same (another digest or setting): its embeddings would not be
those the model was trained on.  New documents are embedded without the on-disk cache.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

from gfbgcn.core.errors import ModelLoadError
from gfbgcn.text.predict.combined import CombinedPredictor
from gfbgcn.text.predict.inductive import InductiveTextGCN
from gfbgcn.text.predict.model_schema import CONFIG
from gfbgcn.text.train.features.encoder import Embed, EncoderDocFeatures

#: The ``config.json`` entry of a model's encoder.
ENCODER_ENTRY = "encoder"


def encoder_record(predictor: InductiveTextGCN | CombinedPredictor) -> dict[str, Any] | None:
    """The record of the encoder ``predictor`` embeds new documents with (its graph part's
    encoder features, or its linear part's), or None when it uses none.  Both parts of one fit
    use the same encoder; a ``ValueError`` where they do not."""
    graph = predictor.graph if isinstance(predictor, CombinedPredictor) else predictor
    records = []
    if isinstance(graph.features, EncoderDocFeatures):
        records.append(graph.features.featuriser.identity)
    if isinstance(predictor, CombinedPredictor) and predictor.linear.uses_encoder:
        if predictor.linear.encoder_identity is None:
            raise ValueError("the linear part uses an encoder but does not record which")
        records.append(predictor.linear.encoder_identity)
    if not records:
        return None
    if any(r != records[0] for r in records[1:]):
        raise ValueError("the graph and linear parts use different encoders")
    return dict(records[0])


#: Where a model keeps an encoder that exists only with it (a fine-tuned one).
BUNDLED = "encoder"


def _embedders(predictor: InductiveTextGCN | CombinedPredictor) -> list[Any]:
    graph = predictor.graph if isinstance(predictor, CombinedPredictor) else predictor
    found = []
    if isinstance(graph.features, EncoderDocFeatures):
        found.append(graph.features.featuriser.embed)
    if isinstance(predictor, CombinedPredictor) and predictor.linear.uses_encoder:
        found.append(predictor.linear.embed)
    return found


def bundled_encoder(predictor: InductiveTextGCN | CombinedPredictor, staging: Path
                    ) -> dict[str, Any] | None:
    """Write the encoder ``predictor`` uses into ``staging/encoder`` when it exists only with
    the model (fine-tuned: :class:`~gfbgcn.text.encoder.embedder.Embedder` ``bundled``), and
    return its record, named ``encoder`` (the loader finds it in the model directory); None
    when the model uses no such encoder."""
    from gfbgcn.text.encoder.embedder import Embedder
    from gfbgcn.text.encoder.save import save_encoder

    bundled = [e for e in _embedders(predictor) if isinstance(e, Embedder) and e.bundled]
    if not bundled:
        return None
    return save_encoder(bundled[0].encoder(), staging / BUNDLED, name=BUNDLED).to_dict()


def load_saved_encoder(path: Path, record: Any, device: torch.device,
                       override: str | None = None) -> Embed:
    """The embedding function of the encoder ``record`` describes (``override``: the directory
    or name to load instead of the recorded one), checked to be the same encoder; a
    :class:`ModelLoadError` naming the model directory otherwise."""
    from gfbgcn.text.encoder import EncoderIdentity
    from gfbgcn.text.encoder.embedder import Embedder

    try:
        saved = EncoderIdentity.from_dict(record)
    except ValueError as err:
        raise ModelLoadError(f"{path / CONFIG}: {ENCODER_ENTRY}: {err}") from None
    name = override
    if name is None and saved.name == BUNDLED and (path / BUNDLED).is_dir():
        name = str(path / BUNDLED)  # the model's own (fine-tuned) encoder
    embedder = Embedder(saved, name, device)
    try:
        embedder.encoder()  # now: a missing or different encoder fails the load, not a predict
    except ModelLoadError as err:
        raise ModelLoadError(f"{path}: the model embeds documents with its encoder, which "
                             f"cannot be used here: {err}; give the same encoder's directory "
                             "with encoder=DIR (gfbgcn predict --encoder DIR)") from None
    return embedder


def attach_encoder(predictor: InductiveTextGCN | CombinedPredictor, embed: Embed,
                   record: dict[str, Any]) -> None:
    """Give the parts of a loaded ``predictor`` that use the encoder its embedding function."""
    graph = predictor.graph if isinstance(predictor, CombinedPredictor) else predictor
    if isinstance(graph.features, EncoderDocFeatures):
        graph.features.featuriser.embed = embed
    if isinstance(predictor, CombinedPredictor) and predictor.linear.uses_encoder:
        predictor.linear.embed, predictor.linear.encoder_identity = embed, dict(record)

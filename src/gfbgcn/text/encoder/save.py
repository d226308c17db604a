"""Writing an encoder to a directory that :func:`gfbgcn.text.encoder.load_encoder` reads back
as the same encoder (a fine-tuned one, kept inside a saved model).

The directory is in the sentence-transformers layout: the transformer's ``config.json``,
weights (safetensors) and tokenizer files, ``modules.json`` (Transformer, Pooling, and Normalize
when the encoder normalises), ``1_Pooling/config.json`` with the encoder's pooling, and
``sentence_bert_config.json`` with its token budget and lower-casing.  Read back, it has the
same pooling, normalisation, budget and width; its files' digest is that of the written files,
which :func:`save_encoder` returns in the identity the loader will compute.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from gfbgcn.text.encoder.embed import SentenceEncoder
from gfbgcn.text.encoder.identity import EncoderIdentity, files_digest
from gfbgcn.text.encoder.pooling import POOLINGS
from gfbgcn.text.encoder.source import read_layout

__all__ = ["save_encoder"]

#: sentence-transformers' Pooling flag of each pooling this package reads.
_POOLING_FLAG = {"mean": "pooling_mode_mean_tokens", "cls": "pooling_mode_cls_token",
                 "max": "pooling_mode_max_tokens"}


def save_encoder(encoder: SentenceEncoder, folder: str | Path, name: str | None = None
                 ) -> EncoderIdentity:
    """Write ``encoder`` into ``folder`` (created; its weights as safetensors); returns the
    identity :func:`~gfbgcn.text.encoder.load_encoder` gives the written directory (with
    ``name``, default the folder, as its name).  The encoder's budget and long-document mode
    are kept in the identity and in ``sentence_bert_config.json``."""
    assert set(_POOLING_FLAG) == set(POOLINGS)
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    s = encoder.identity
    model: Any = encoder.model  # a transformers model (typed as torch.nn.Module)
    model.save_pretrained(out, safe_serialization=True)
    encoder.tokenizer.save_pretrained(out)
    modules = [{"idx": 0, "name": "0", "path": "",
                "type": "sentence_transformers.models.Transformer"},
               {"idx": 1, "name": "1", "path": "1_Pooling",
                "type": "sentence_transformers.models.Pooling"}]
    if s.normalize:
        modules.append({"idx": 2, "name": "2", "path": "2_Normalize",
                        "type": "sentence_transformers.models.Normalize"})
        (out / "2_Normalize").mkdir(exist_ok=True)
    (out / "modules.json").write_text(json.dumps(modules, indent=1), encoding="utf-8")
    (out / "1_Pooling").mkdir(exist_ok=True)
    flags = {flag: mode == s.pooling for mode, flag in _POOLING_FLAG.items()}
    (out / "1_Pooling" / "config.json").write_text(
        json.dumps({"word_embedding_dimension": s.dim, **flags}, indent=1), encoding="utf-8")
    (out / "sentence_bert_config.json").write_text(
        json.dumps({"max_seq_length": s.max_length, "do_lower_case": encoder.lowercase},
                   indent=1), encoding="utf-8")
    layout = read_layout(out)
    return replace(s, name=name or str(out), digest=files_digest(out.resolve(), layout.files))

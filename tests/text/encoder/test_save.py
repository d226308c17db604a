"""An encoder written by save_encoder reads back as the same encoder: same identity (its
files' digest as returned), same embeddings, whatever its pooling and normalisation."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from gfbgcn.text.encoder import load_encoder
from gfbgcn.text.encoder.save import save_encoder
from tests.text.encoder.tinybert import write_sentence_transformers

TEXTS = ["the film was good", "oil price news", "a long text " * 30]


@pytest.mark.parametrize(("pooling", "normalize"), [("mean", True), ("cls", False),
                                                    ("max", True)])
def test_a_saved_encoder_loads_as_the_same_one(plain_dir: Path, tmp_path: Path, pooling: str,
                                               normalize: bool) -> None:
    source = write_sentence_transformers(plain_dir, tmp_path / "source", pooling=pooling,
                                         normalize=normalize, max_seq_length=24)
    encoder = load_encoder(source)
    identity = save_encoder(encoder, tmp_path / "saved", name="encoder")
    again = load_encoder(tmp_path / "saved")
    assert identity.name == "encoder" and again.identity.key() == identity.key()
    assert (again.identity.pooling, again.identity.normalize, again.identity.max_length) == (
        pooling, normalize, 24)
    np.testing.assert_allclose(again.embed(TEXTS), encoder.embed(TEXTS), rtol=1e-5, atol=1e-6)
    # the digest is the written files': another weight changes it
    again.model.embeddings.word_embeddings.weight.data[5] += 1.0
    assert save_encoder(again, tmp_path / "changed").digest != identity.digest

"""Loading an encoder: both layouts, names from a Hugging Face cache, the identity record and
one-line errors for everything that cannot be used."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from gfbgcn.core.errors import MissingExtraError, OptionError, UserError
from gfbgcn.text.encoder import (
    EncoderIdentity,
    EncoderLoadError,
    SentenceEncoder,
    load_encoder,
)
from tests.text.encoder.tinybert import MAX_POSITIONS, write_sentence_transformers


def _one_line_error(path: Path | str, match: str, **options) -> EncoderLoadError:
    with pytest.raises(EncoderLoadError, match=match) as caught:
        load_encoder(path, **options)
    message = str(caught.value)
    assert "\n" not in message and str(path) in message, message
    return caught.value


def test_a_plain_transformers_directory_means_mean_pooling_normalised(plain_dir: Path) -> None:
    encoder = load_encoder(plain_dir)
    assert isinstance(encoder, SentenceEncoder)
    identity = encoder.identity
    assert (identity.pooling, identity.normalize, identity.dim) == ("mean", True, 32)
    assert identity.max_length == min(MAX_POSITIONS, 512)  # no max_seq_length: the positions
    assert identity.long_documents == "truncate" and identity.name == str(plain_dir)
    assert not encoder.model.training
    assert not any(p.requires_grad for p in encoder.model.parameters())


def test_a_sentence_transformers_directory_gives_its_pooling_and_budget(
        plain_dir: Path, tmp_path: Path) -> None:
    st = write_sentence_transformers(plain_dir, tmp_path / "st", pooling="cls",
                                     normalize=False, max_seq_length=24)
    identity = load_encoder(st).identity
    assert (identity.pooling, identity.normalize, identity.max_length) == ("cls", False, 24)
    assert load_encoder(st, max_length=40).identity.max_length == 40


def test_the_identity_round_trips_and_its_key_ignores_the_name(plain_dir: Path,
                                                                copy_of) -> None:
    identity = load_encoder(plain_dir).identity
    again = EncoderIdentity.from_dict(json.loads(json.dumps(identity.to_dict())))
    assert again == identity
    moved = load_encoder(copy_of(plain_dir)).identity
    assert moved.name != identity.name and moved.digest == identity.digest
    assert moved.key() == identity.key()
    chunks = load_encoder(plain_dir, long_documents="chunks").identity
    assert chunks.key() != identity.key()
    # max_chunks changes vectors only in chunks mode
    assert load_encoder(plain_dir, max_chunks=3).identity.key() == identity.key()
    assert (load_encoder(plain_dir, long_documents="chunks", max_chunks=3).identity.key()
            != chunks.key())


@pytest.mark.parametrize("field, value", [("digest", "abc"), ("pooling", "lasttoken"),
                                          ("max_length", 0), ("normalize", 1), ("extra", 1)])
def test_a_malformed_identity_record_names_its_field(plain_dir: Path, field: str,
                                                     value: object) -> None:
    record = {**load_encoder(plain_dir).identity.to_dict(), field: value}
    with pytest.raises(ValueError, match=field):
        EncoderIdentity.from_dict(record)


def test_the_digest_covers_the_model_files_only(plain_dir: Path, copy_of) -> None:
    base = load_encoder(plain_dir).identity.digest
    folder = copy_of(plain_dir)
    (folder / "README.md").write_text("notes")
    assert load_encoder(folder).identity.digest == base
    config = json.loads((folder / "tokenizer_config.json").read_text())
    (folder / "tokenizer_config.json").write_text(json.dumps({**config, "note": 1}))
    assert load_encoder(folder).identity.digest != base


def test_a_name_resolves_through_the_hugging_face_cache(plain_dir: Path, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    hub = pytest.importorskip("huggingface_hub")
    cache = tmp_path / "hub"
    snapshot = cache / "models--sentence-transformers--tiny-bert" / "snapshots" / "0123abcd"
    write_sentence_transformers(plain_dir, snapshot)
    (snapshot.parents[1] / "refs").mkdir()
    (snapshot.parents[1] / "refs" / "main").write_text("0123abcd")
    monkeypatch.setattr(hub.constants, "HF_HUB_CACHE", str(cache))
    for name in ("sentence-transformers/tiny-bert", "tiny-bert"):  # bare: sentence-transformers/
        encoder = load_encoder(name)
        assert encoder.identity.name == name and encoder.identity.max_length == 24
    _one_line_error("someone/absent-model", "no model of that name in the Hugging Face cache")
    # downloads asked for, but the environment is offline (the autouse fixture): refused
    _one_line_error("someone/absent-model", "downloads are off", allow_download=True)


def test_without_the_extra_an_encoder_is_one_line_naming_the_pip_command(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for loaded in [m for m in sys.modules if m.startswith("transformers.")]:
        monkeypatch.delitem(sys.modules, loaded)
    monkeypatch.setitem(sys.modules, "transformers", None)
    with pytest.raises(MissingExtraError) as caught:
        load_encoder(tmp_path)
    assert str(caught.value) == "--encoder needs transformers: pip install 'gfbgcn[encoders]'"


def _remove(folder: Path, *names: str) -> Path:
    for name in names:
        (folder / name).unlink()
    return folder


def test_bad_directories_are_one_line_errors(plain_dir: Path, copy_of, tmp_path: Path) -> None:
    _one_line_error(tmp_path / "absent" / "dir", "no such directory")
    (tmp_path / "file.txt").write_text("x")
    _one_line_error(tmp_path / "file.txt", "not a directory")
    (tmp_path / "empty").mkdir()
    _one_line_error(tmp_path / "empty", "no config.json")
    _one_line_error(_remove(copy_of(plain_dir), "model.safetensors"), "no weights")
    folder = copy_of(plain_dir)
    _one_line_error(_remove(folder, "tokenizer.json"), "no tokenizer")


def test_unreadable_or_corrupt_files_are_one_line_errors(plain_dir: Path, copy_of) -> None:
    folder = copy_of(plain_dir)
    (folder / "config.json").write_text("{not json")
    _one_line_error(folder, "config.json")
    folder = copy_of(plain_dir)
    (folder / "model.safetensors").write_bytes(b"\0" * 100)
    _one_line_error(folder, "cannot load the model")
    if os.geteuid() != 0:  # root reads any file
        folder = copy_of(plain_dir)
        (folder / "tokenizer.json").chmod(0)
        _one_line_error(folder, "cannot read")


def test_weights_of_another_model_are_refused(plain_dir: Path, copy_of) -> None:
    folder = copy_of(plain_dir)
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, "num_hidden_layers": 3}))
    _one_line_error(folder, "weights do not fit config.json")


@pytest.mark.parametrize("config, match", [
    ({"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"]}, "not an encoder"),
    ({"model_type": "llama"}, "not an encoder"),
    ({"model_type": "bert", "is_decoder": True}, "is a decoder model"),
    ({"model_type": "t5", "is_encoder_decoder": True}, "encoder-decoder"),
])
def test_a_model_that_is_not_an_encoder_is_refused(plain_dir: Path, copy_of, config: dict,
                                                   match: str) -> None:
    folder = copy_of(plain_dir)
    (folder / "config.json").write_text(json.dumps(config))
    _one_line_error(folder, match)


def test_unsupported_sentence_transformers_modules_are_refused(plain_dir: Path,
                                                               tmp_path: Path) -> None:
    dense = write_sentence_transformers(plain_dir, tmp_path / "dense",
                                        extra_modules=("sentence_transformers.models.Dense",))
    _one_line_error(dense, "module Dense is not supported")
    sqrt = write_sentence_transformers(plain_dir, tmp_path / "sqrt", pooling="mean_sqrt")
    _one_line_error(sqrt, "pooling pooling_mode_mean_sqrt_len_tokens is not supported")


def test_settings_out_of_range_are_option_errors(plain_dir: Path) -> None:
    for options in ({"long_documents": "summarise"}, {"max_chunks": 0},
                    {"max_length": MAX_POSITIONS + 1}, {"max_length": 2}):
        with pytest.raises(OptionError):
            load_encoder(plain_dir, **options)
    with pytest.raises(UserError):
        load_encoder(plain_dir, device="tpu")

"""Saved-model configurations checked field by field (``config.json: FIELD: problem``)."""

from __future__ import annotations

import json

import pytest
import torch
from safetensors.torch import load_file, save_file

from gfbgcn.cli import main
from gfbgcn.core.errors import ModelLoadError
from gfbgcn.core.io import json_digest, sha256_file
from gfbgcn.text.predict.model_schema import SCHEMA, validate_config
from gfbgcn.text.predict.saved import load_model


def _config(path):
    return json.loads((path / "config.json").read_text())


def _write(path, cfg, *, sign: bool = True):
    """Write ``cfg`` back, re-signed as a tamperer who knows the format would."""
    if sign:
        cfg["config_sha256"] = json_digest({k: v for k, v in cfg.items()
                                            if k != "config_sha256"})
    (path / "config.json").write_text(json.dumps(cfg))


def test_a_saved_configuration_meets_the_schema(model_dir, tmp_path):
    path, _ = model_dir
    validate_config(_config(path), path / "config.json")
    # required fields, except those inside an optional object (combined.*: combined models)
    def optional(field):
        return getattr(SCHEMA[field], "optional", False)

    assert all(field.split(".")[0] in _config(path) for field in SCHEMA
               if not optional(field) and not optional(field.split(".")[0]))


@pytest.mark.parametrize(("keys", "value", "field"), [
    (("versions",), "x", "versions"),
    (("model", "hidden"), "abc", "model.hidden"),
    (("model", "hidden"), 0, "model.hidden"),
    (("model", "dtype"), "int8", "model.dtype"),
    (("tokenizer",), "textgcn", "tokenizer"),
    (("labels", "names"), ["a", "a", "b"], "labels.names"),
    (("labels", "multi_label"), "no", "labels.multi_label"),
    (("labels", "threshold"), 2.0, "labels.threshold"),
    (("inductive", "self_embedding"), "random", "inductive.self_embedding"),
    (("shapes",), {"w1_words": "big"}, "shapes"),
])
def test_a_malformed_field_is_named(model_dir, keys, value, field):
    path, _ = model_dir
    cfg = _config(path)
    node = cfg
    for key in keys[:-1]:
        node = node[key]
    node[keys[-1]] = value
    _write(path, cfg)
    with pytest.raises(ModelLoadError, match=rf"config\.json: {field}: "):
        load_model(path)


@pytest.mark.parametrize("drop", ["config_sha256", "sha256", "model"])
def test_a_model_without_its_digests_is_refused(model_dir, drop):
    path, _ = model_dir
    cfg = _config(path)
    del cfg[drop]
    _write(path, cfg, sign=False)
    with pytest.raises(ModelLoadError, match=rf"config\.json: {drop}: missing"):
        load_model(path)


def test_a_missing_file_digest_is_refused(model_dir):
    path, _ = model_dir
    cfg = _config(path)
    del cfg["sha256"]["vocab.json"]
    _write(path, cfg)
    with pytest.raises(ModelLoadError, match="sha256: digests of .*vocab.json.* missing"):
        load_model(path)


def test_resigned_tensors_of_the_wrong_dtype_are_refused_at_load(model_dir):
    path, _ = model_dir
    weights = path / "model.safetensors"
    tensors = load_file(str(weights))
    tensors["h_words"] = tensors["h_words"].to(torch.float16)
    save_file(tensors, str(weights))
    cfg = _config(path)
    cfg["sha256"]["model.safetensors"] = sha256_file(weights)
    _write(path, cfg)
    with pytest.raises(ModelLoadError, match="'h_words' has dtype float16, expected float32"):
        load_model(path)


def test_predict_reports_a_malformed_field_in_one_line(model_dir, capsys):
    path, _ = model_dir
    cfg = _config(path)
    cfg["model"]["hidden"] = "abc"
    _write(path, cfg)
    assert main(["predict", str(path), "--text", "some words"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and "config.json: model.hidden: expected a whole number" in err
    assert "\n" not in err and "internal error" not in err

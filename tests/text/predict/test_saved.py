"""Saving and loading models: round trip, corrupt and incompatible directories, save_trained."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

import gfbgcn
from gfbgcn.core.errors import ModelLoadError
from gfbgcn.core.io import json_digest, sha256_file
from gfbgcn.text.predict import model_schema
from gfbgcn.text.predict.inductive import InductiveTextGCN
from gfbgcn.text.predict.model_files import VersionMismatchWarning
from gfbgcn.text.predict.saved import load_model, read_config, save_model, save_trained
from tests.text.toydata import NEW_DOCS, toy_corpus


def test_round_trip_same_predictions(model_dir):
    path, in_memory = model_dir
    loaded = gfbgcn.load(path)
    a, b = in_memory.predict(NEW_DOCS), loaded.predict(NEW_DOCS)
    assert a.labels == b.labels
    np.testing.assert_array_equal(a.probabilities, b.probabilities)
    np.testing.assert_array_equal(loaded.predict_proba(NEW_DOCS), b.probabilities)
    cfg = json.loads((path / "config.json").read_text())
    assert cfg["model"]["name"] == "gfb-max" and cfg["labels"]["names"] == ["a", "b", "c"]
    assert cfg["tokenizer"]["reloadable_by_name"] is True
    assert {"w1_words", "h_words", "deg_words", "idf", "conv2.lin.weight", "conv2.lam"} <= set(
        cfg["shapes"])


def _rewrite_config(path, *changes):
    """``changes``: ``(key, ..., value)`` tuples setting ``cfg[key]...`` to ``value``."""
    cfg = json.loads((path / "config.json").read_text())
    for *keys, value in changes:
        node = cfg
        for key in keys[:-1]:
            node = node[key]
        node[keys[-1]] = value
    # these tests plant other faults than an edit: re-sign the configuration
    cfg["config_sha256"] = json_digest({k: v for k, v in cfg.items() if k != "config_sha256"})
    (path / "config.json").write_text(json.dumps(cfg))


def test_corrupt_weights(model_dir):
    path, _ = model_dir
    data = bytearray((path / "model.safetensors").read_bytes())
    data[-10] ^= 0xFF
    (path / "model.safetensors").write_bytes(bytes(data))
    with pytest.raises(ModelLoadError, match="model.safetensors: checksum mismatch"):
        load_model(path)
    (path / "model.safetensors").write_bytes(b"\x00garbage")  # and with a matching checksum
    _rewrite_config(path, ("sha256", "model.safetensors", sha256_file(path / "model.safetensors")))
    with pytest.raises(ModelLoadError, match="corrupt weights file"):
        load_model(path)


def test_missing_files(model_dir, tmp_path):
    path, _ = model_dir
    copy = shutil.copytree(path, tmp_path / "copy")
    (path / "vocab.json").unlink()
    with pytest.raises(ModelLoadError, match="vocab.json is missing"):
        load_model(path)
    (copy / "config.json").unlink()
    with pytest.raises(ModelLoadError, match="config.json is missing"):
        load_model(copy)
    with pytest.raises(ModelLoadError, match="no such model directory"):
        load_model(tmp_path / "nowhere")


def test_version_checks(model_dir):
    path, _ = model_dir
    _rewrite_config(path, ("format_version", 99))
    with pytest.raises(ModelLoadError, match="format version 99"):
        load_model(path)
    _rewrite_config(path, ("format_version", model_schema.FORMAT_VERSION),
                    ("versions", "gfbgcn", "9.0.0"))
    with pytest.raises(ModelLoadError, match="gfbgcn 9.0.0, incompatible"):
        load_model(path)
    _rewrite_config(path, ("versions", "gfbgcn", gfbgcn.__version__),
                    ("versions", "numpy", "0.0.1"))
    with pytest.warns(VersionMismatchWarning, match="numpy 0.0.1"):
        load_model(path)


def test_a_model_of_the_previous_format_is_refused_in_one_line(model_dir):
    """Version 1 named the built-in tokenizers by module path; it is refused, not converted."""
    path, _ = model_dir
    _rewrite_config(path, ("format_version", 1),
                    ("tokenizer", "name", "gfbgcn.text.preprocess.textgcn_tokenize"))
    with pytest.raises(ModelLoadError) as err:
        load_model(path)
    assert str(err.value) == (
        f"{path / 'config.json'}: model format version 1, this gfbgcn reads version "
        f"{model_schema.FORMAT_VERSION}; use the gfbgcn version that saved it, or retrain")
    assert model_schema.FORMAT_VERSION == 2


def test_shape_mismatch(model_dir):
    path, _ = model_dir
    vocab = json.loads((path / "vocab.json").read_text())
    (path / "vocab.json").write_text(json.dumps(vocab[:-1]))
    _rewrite_config(path, ("sha256", "vocab.json", sha256_file(path / "vocab.json")))
    with pytest.raises(ModelLoadError, match="expected"):
        load_model(path)


def test_custom_tokenizer_must_be_passed(trained, tmp_path):
    graph, result = trained
    custom = lambda s: s.split()  # noqa: E731
    pred = InductiveTextGCN.from_trained(result.model, graph, "gfb-max", tokenizer=custom)
    pred.tokenizer_name = "custom"
    path = save_model(tmp_path / "m", pred)
    with pytest.raises(ModelLoadError, match="only the built-in"):
        load_model(path)
    loaded = load_model(path, tokenizer=custom)
    np.testing.assert_array_equal(loaded.predict_proba(NEW_DOCS), pred.predict_proba(NEW_DOCS))


def test_save_trained_records_the_run_and_reloads(trained, tmp_path):
    graph, result = trained
    corpus = toy_corpus()
    path = save_trained(tmp_path / "m", result, graph, corpus)
    cfg = read_config(path)
    assert cfg["model"]["name"] == "gfb-max" and cfg["model"]["hidden"] == 16
    assert cfg["model"]["layer_options"] == {"exact": True}
    assert cfg["training_data"]["train_docs"] == int(graph.is_train.sum())
    assert len(cfg["training_data"]["corpus_sha256"]) == 64
    assert cfg["train"]["seed"] == 0 and cfg["graph"]["window"] == 3
    assert "confusion_matrix" not in cfg["metrics"]["test"]
    assert cfg["labels"]["multi_label"] is False and cfg["labels"]["separator"] is None
    direct = InductiveTextGCN.from_trained(result.model, graph, "gfb-max")
    np.testing.assert_array_equal(load_model(path).predict_proba(NEW_DOCS),
                                  direct.predict_proba(NEW_DOCS))


def test_save_trained_multi_label_prior_and_names(trained, tmp_path):
    graph, result = trained
    corpus = toy_corpus()
    corpus.labels = ["a|b" if label == "c" else label for label in corpus.labels]
    path = save_trained(tmp_path / "ml", result, graph, corpus, label_names=["a", "b", "c"])
    model = load_model(path)
    cfg = read_config(path)
    assert model.multi_label and model.label_names == ["a", "b", "c"]
    assert cfg["labels"]["separator"] == "|"
    train = [lab.split("|") for lab, t in zip(corpus.labels, graph.is_train) if t]
    expected = [np.mean([name in labs for labs in train]) for name in ("a", "b", "c")]
    np.testing.assert_allclose(model.prior, expected)  # per-label training frequency

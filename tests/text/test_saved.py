"""Saving and loading models; the ``gfbgcn predict`` command."""

from __future__ import annotations

import io
import json
import shutil
import sys

import numpy as np
import pytest
import torch

import gfbgcn
from gfbgcn.cli import main
from gfbgcn.io import sha256_file
from gfbgcn.text import saved
from gfbgcn.text.graph import GraphConfig, build_text_graph
from gfbgcn.text.inductive import InductiveTextGCN
from gfbgcn.text.preprocess import whitespace_tokenize
from gfbgcn.text.saved import ModelLoadError, VersionMismatchWarning, load_model, save_model
from gfbgcn.train.text import TextTrainConfig, train_text

from toydata import toy_corpus

torch.set_num_threads(1)

NEW_DOCS = ["w1 w2 w3 w4", "w5 w5 w6 unknown", "w10 w11 w12 w13 w14 w2", "w0"]


@pytest.fixture(scope="module")
def trained():
    corpus = toy_corpus()
    graph = build_text_graph(corpus, GraphConfig(window=3, min_freq=1, stop_words=None),
                             whitespace_tokenize, cache=False)
    result = train_text(graph, TextTrainConfig(model="gfb-max", epochs=5, hidden=16, seed=0,
                                               layer_options={"exact": True}), progress=False)
    return graph, result


@pytest.fixture()
def model_dir(trained, tmp_path):
    graph, result = trained
    pred = InductiveTextGCN.from_trained(result.model, graph)
    return save_model(tmp_path / "model", pred, layer_options=result.config.layer_options,
                      data_hash={"graph_key": graph.key}), pred


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
    (path / "config.json").write_text(json.dumps(cfg))


def test_corrupt_weights(model_dir):
    path, _ = model_dir
    data = bytearray((path / "model.safetensors").read_bytes())
    data[-10] ^= 0xFF
    (path / "model.safetensors").write_bytes(bytes(data))
    with pytest.raises(ModelLoadError, match="model.safetensors: checksum mismatch"):
        load_model(path)
    (path / "model.safetensors").write_bytes(b"\x00garbage")  # and without a checksum to help
    _rewrite_config(path, ("sha256", "model.safetensors", None))
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
    _rewrite_config(path, ("format_version", saved.FORMAT_VERSION), ("versions", "gfbgcn", "9.0.0"))
    with pytest.raises(ModelLoadError, match="gfbgcn 9.0.0, incompatible"):
        load_model(path)
    _rewrite_config(path, ("versions", "gfbgcn", gfbgcn.__version__),
                    ("versions", "numpy", "0.0.1"))
    with pytest.warns(VersionMismatchWarning, match="numpy 0.0.1"):
        load_model(path)


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
    pred = InductiveTextGCN.from_trained(result.model, graph, tokenizer=custom)
    pred.tokenizer_name = "custom"
    path = save_model(tmp_path / "m", pred)
    with pytest.raises(ModelLoadError, match="only the built-in"):
        load_model(path)
    loaded = load_model(path, tokenizer=custom)
    np.testing.assert_array_equal(loaded.predict_proba(NEW_DOCS), pred.predict_proba(NEW_DOCS))


def test_predict_cli(model_dir, tmp_path, capsys, monkeypatch):
    path, in_memory = model_dir
    csv_in = tmp_path / "docs.csv"
    csv_in.write_text("id,body\n1,w1 w2 w3 w4\n2,\"w5 w5 w6 unknown\"\n", encoding="utf-8")
    out = tmp_path / "preds.csv"
    assert main(["predict", str(path), "--input", str(csv_in), "--text-col", "body",
                 "--output", str(out), "--top-k", "2", "--batch-size", "1"]) == 0
    lines = out.read_text().splitlines()
    assert lines[0] == "row,label,probability,label_2,probability_2" and len(lines) == 3
    expected = in_memory.predict(NEW_DOCS[:2])
    assert [line.split(",")[1] for line in lines[1:]] == expected.labels
    # JSONL, --text, empty text, stdout
    jsonl = tmp_path / "docs.jsonl"
    jsonl.write_text('{"text": "w1 w2"}\n{"text": ""}\n', encoding="utf-8")
    assert main(["predict", str(path), "--input", str(jsonl), "--text", "w3"]) == 0
    captured = capsys.readouterr()
    assert len(captured.out.splitlines()) == 4
    assert "no word of the model's vocabulary" in captured.err
    # stdin, one document per line
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"w1 w2\nw3\n")))
    assert main(["predict", str(path), "--input", "-"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 3


def test_predict_cli_non_utf8_and_large_input(model_dir, tmp_path, capsys):
    path, _ = model_dir
    bad = tmp_path / "latin1.txt"
    bad.write_bytes(b"w1 w2 caf\xe9\n\xff\xfe w3\n")
    assert main(["predict", str(path), "--input", str(bad)]) == 0
    captured = capsys.readouterr()
    assert len(captured.out.splitlines()) == 3
    assert "not valid utf-8 (first at line 1)" in captured.err
    big = tmp_path / "big.txt"
    rng = np.random.default_rng(0)
    big.write_text(" ".join(rng.choice([f"w{i}" for i in range(30)], 300_000)) + "\n")
    assert big.stat().st_size > 1_000_000
    assert main(["predict", str(path), "--input", str(big), "--output",
                 str(tmp_path / "o.csv")]) == 0
    assert len((tmp_path / "o.csv").read_text().splitlines()) == 2


def test_predict_cli_errors(model_dir, tmp_path, capsys):
    path, _ = model_dir
    assert main(["predict", str(tmp_path / "missing"), "--text", "x"]) == 2
    assert "no such model directory" in capsys.readouterr().err
    assert main(["predict", str(path)]) == 2
    csv_in = tmp_path / "docs.csv"
    csv_in.write_text("body\nw1\n")
    assert main(["predict", str(path), "--input", str(csv_in)]) == 2
    assert "no column 'text'" in capsys.readouterr().err


def test_train_own_csv_custom_columns_save_predict(tmp_path, capsys):
    """``gfbgcn train --dataset my.csv --text-col --label-col --split-col --save`` end to end."""
    rng = np.random.default_rng(0)
    pools = {"sport": ["goal", "match", "team", "striker", "league", "cup"],
             "money": ["bank", "shares", "market", "profits", "rates", "inflation"]}
    lines = ["body,topic,part"]
    for i in range(24):
        topic = "sport" if i % 2 else "money"
        part = "test" if i % 6 == 5 else "train"
        lines.append(f"\"{' '.join(rng.choice(pools[topic], 8))}\",{topic},{part}")
    path = tmp_path / "own.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    model_dir = tmp_path / "own-model"
    assert main(["train", "--dataset", str(path), "--text-col", "body", "--label-col", "topic",
                 "--split-col", "part", "--model", "gcn", "--min-freq", "1", "--hidden", "16",
                 "--epochs", "30", "--quiet", "--no-cache", "--save", str(model_dir)]) == 0
    out = capsys.readouterr().out
    assert "24 documents" in out and "test accuracy" in out
    cfg = json.loads((model_dir / "config.json").read_text())
    assert cfg["training_data"]["train_docs"] == 20
    assert len(cfg["training_data"]["corpus_sha256"]) == 64
    model = gfbgcn.load(model_dir)
    assert model.label_names == ["money", "sport"]
    assert model.predict(["goal match team cup", "bank shares market"]).labels == ["sport", "money"]

"""The classifier's settings read back from a model directory's ``config.json``."""

from __future__ import annotations

import json

import numpy as np
import pytest

from gfbgcn import TextGCNClassifier
from gfbgcn.cli import main
from gfbgcn.core.errors import ModelLoadError
from gfbgcn.core.io import json_digest
from gfbgcn.text.estimator.persist import json_params
from gfbgcn.text.predict.saved import read_config
from tests.text.toydata import write_topic_csv


def test_json_params_keep_what_json_holds():
    assert json_params({"a": 1, "b": None, "c": str.split, "d": "x"}) == {
        "a": 1, "b": None, "c": None, "d": "x"}
    recorded = json_params({"random_state": np.int64(1), "r": np.random.RandomState(0),
                            "f": np.float32(0.5), "b": np.bool_(True)})
    assert recorded == {"random_state": 1, "r": None, "f": 0.5, "b": True}
    assert type(recorded["random_state"]) is int and type(recorded["b"]) is bool
    # a class_weight dict: its weights by string keys (matched as strings when fitting)
    assert json_params({"class_weight": {2: np.float64(3.0), "a": 1}}) == {
        "class_weight": {"2": 3.0, "a": 1}}
    assert json_params({"d": {"a": str.split}}) == {"d": None}


def test_a_model_saved_by_gfbgcn_train_loads_as_a_classifier(tmp_path, capsys):
    data = write_topic_csv(tmp_path / "topics.csv")
    model = tmp_path / "model"
    argv = ["train", "--dataset", str(data), "--min-freq", "1", "--window", "4", "--epochs", "3",
            "--hidden", "8", "--model", "gfb-mean", "--fast-genvec", "--seed", "2", "--quiet",
            "--no-cache", "--no-baseline", "--save", str(model)]
    assert main(argv) == 0
    capsys.readouterr()
    clf = TextGCNClassifier.load(model)
    params = clf.get_params()
    assert {k: params[k] for k in ("model", "hidden", "epochs", "window", "min_freq",
                                   "random_state", "fast_genvec", "tokenizer")} == {
        "model": "gfb-mean", "hidden": 8, "epochs": 3, "window": 4, "min_freq": 1,
        "random_state": 2, "fast_genvec": True, "tokenizer": None}  # None: by the corpus
    assert clf.predictor_.tokenizer_name == "unicode"  # what that meant for this file
    assert clf.classes_.tolist() == ["money", "sport"]
    docs = ["goal match team", "bank shares rates"]
    from gfbgcn import load

    np.testing.assert_allclose(clf.predict_proba(docs), load(model).predict_proba(docs))
    # without the classifier's entry (saved by save_model): refused in one line, not guessed
    # from the training settings
    config = read_config(model)
    del config["estimator"], config["config_sha256"]
    config["config_sha256"] = json_digest(config)
    (model / "config.json").write_text(json.dumps(config), encoding="utf-8")
    assert load(model).predict(docs) is not None
    with pytest.raises(ModelLoadError, match=r"^\S+model: saved without the classifier's "
                       r"parameters \(by save_model or save_trained\); load it with "
                       r"gfbgcn\.load\(path\)$"):
        TextGCNClassifier.load(model)


def test_a_multi_label_model_saved_by_gfbgcn_train_loads_as_a_classifier(tmp_path, capsys):
    from gfbgcn import load

    data = tmp_path / "multi.csv"
    rows = [f"goal match {i},sport|news" if i % 2 else f"bank rates {i},money"
            for i in range(16)]
    data.write_text("text,label\n" + "\n".join(rows) + "\n")
    model = tmp_path / "model"
    assert main(["train", "--dataset", str(data), "--min-freq", "1", "--epochs", "2",
                 "--hidden", "4", "--quiet", "--no-cache", "--multi-label",
                 "--save", str(model)]) == 0
    capsys.readouterr()
    clf = TextGCNClassifier.load(model)
    docs = ["goal match", "bank rates", "goal bank"]
    plain = load(model)
    assert clf.multi_label and clf.classes_.tolist() == ["money", "news", "sport"]
    np.testing.assert_allclose(clf.predict_proba(docs), plain.predict_proba(docs), rtol=1e-6)
    expected = (plain.predict_proba(docs) >= plain.threshold).astype(np.int64)
    np.testing.assert_array_equal(clf.predict(docs), expected)  # the joined labels' form


@pytest.mark.parametrize(("classes", "problem"), [
    (["money", "x"], r"'x' is not a label of the model"),
    (["money"], r"1 classes for the model's 2 labels"),
    (["money", "money"], r"2 classes for the model's 2 labels, each once"),
])
def test_classes_the_model_does_not_have_are_one_line(tmp_path, capsys, classes, problem):
    model = tmp_path / "model"
    assert main(["train", "--dataset", str(write_topic_csv(tmp_path / "t.csv")), "--min-freq",
                 "1", "--epochs", "2", "--hidden", "4", "--quiet", "--no-cache",
                 "--no-baseline", "--save", str(model)]) == 0
    capsys.readouterr()
    config = read_config(model)
    config["estimator"]["classes"] = classes
    del config["config_sha256"]
    config["config_sha256"] = json_digest(config)  # re-signed: only the content check is left
    (model / "config.json").write_text(json.dumps(config), encoding="utf-8")
    with pytest.raises(ModelLoadError, match=r"config\.json: estimator\.classes: " + problem):
        TextGCNClassifier.load(model)

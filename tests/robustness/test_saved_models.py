"""B. Saved models: every model ``train --save`` accepts loads again and predicts; a directory a
tamperer re-signed (digests recomputed, so every checksum passes) either loads and predicts
correctly or is refused in one line naming the file and the problem, never an internal
error."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import torch
from safetensors.torch import load_file, save_file

import gfbgcn
from gfbgcn.cli import main
from gfbgcn.core.io import json_digest, sha256_file
from gfbgcn.text.train.models import INDUCTIVE_MODELS, WHOLE_MODELS
from tests.robustness.conftest import FAST, documents, write_csv

TEXTS = ["match goal team player", "computer software code chip", "bread cheese soup"]


@pytest.fixture(scope="module")
def trained_models(tmp_path_factory) -> Callable[[str], Path]:
    """``trained(name)``: the directory ``gfbgcn train --model NAME --save`` wrote (trained
    once per module and model; 2 epochs on the small corpus)."""
    root = tmp_path_factory.mktemp("all-models")
    data = write_csv(root / "corpus.csv", documents())
    done: dict[str, Path] = {}

    def trained(name: str) -> Path:
        if name not in done:
            path = root / name
            assert main(["train", "--dataset", str(data), *FAST, "--no-baseline",
                         "--model", name, "--save", str(path)]) == 0
            done[name] = path
        return done[name]

    return trained


@pytest.mark.parametrize("name", INDUCTIVE_MODELS)
def test_every_savable_model_loads_and_predicts(trained_models, cli, tmp_path, name):
    path = trained_models(name)
    predictor = gfbgcn.load(path)
    proba = predictor.predict_proba(TEXTS)
    assert proba.shape == (3, 3) and np.isfinite(proba).all()
    np.testing.assert_allclose(proba.sum(1), 1.0, atol=1e-6)
    (tmp_path / "new.txt").write_text("\n".join(TEXTS) + "\n", encoding="utf-8")
    result = cli("predict", path, "--input", tmp_path / "new.txt", "--output",
                 tmp_path / "out.csv")
    assert result.status == 0, result.err
    assert (tmp_path / "out.csv").read_text(encoding="utf-8").count("\n") == 4


@pytest.mark.parametrize("name", WHOLE_MODELS)
def test_a_model_that_cannot_be_saved_is_refused_before_training(cli, corpus, tmp_path, name):
    result = cli("train", "--dataset", corpus, *FAST, "--model", name, "--save",
                 tmp_path / "model")
    result.assert_user_error("--save supports the two-layer models only", name)
    assert not (tmp_path / "model").exists()


def _copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


def _resign(path: Path, *, tensors: dict[str, torch.Tensor] | None = None,
            vocab: list | None = None, edit: Callable[[dict], None] | None = None) -> None:
    """Rewrite the model's files as a tamperer who knows the format would: every digest
    recomputed, so only the content checks can catch the change."""
    if tensors is not None:
        save_file(tensors, str(path / "model.safetensors"))
    if vocab is not None:
        (path / "vocab.json").write_text(json.dumps(vocab), encoding="utf-8")
    cfg = json.loads((path / "config.json").read_text(encoding="utf-8"))
    if edit is not None:
        edit(cfg)
    cfg["sha256"] = {name: sha256_file(path / name)
                     for name in ("model.safetensors", "vocab.json")}
    cfg["shapes"] = {k: list(v.shape) for k, v in load_file(str(path / "model.safetensors"))
                     .items()}
    cfg["config_sha256"] = json_digest({k: v for k, v in cfg.items() if k != "config_sha256"})
    (path / "config.json").write_text(json.dumps(cfg), encoding="utf-8")


def _tensors(path: Path) -> dict[str, torch.Tensor]:
    return load_file(str(path / "model.safetensors"))


@pytest.mark.parametrize("name", ["gcn", "cbp"])
def test_a_float64_model_loads_and_predicts_like_the_float32_one(trained_models, tmp_path, name):
    src = trained_models(name)
    path = _copy(src, tmp_path / "f64")
    tensors = {k: v.double() if v.is_floating_point() else v
               for k, v in _tensors(path).items()}
    _resign(path, tensors=tensors, edit=lambda cfg: cfg["model"].update(dtype="float64"))
    wide, narrow = gfbgcn.load(path), gfbgcn.load(src)
    np.testing.assert_allclose(wide.predict_proba(TEXTS), narrow.predict_proba(TEXTS),
                               atol=1e-5)


def test_float64_weights_in_a_float32_model_are_refused(saved_model, cli, tmp_path):
    path = _copy(saved_model, tmp_path / "m")
    tensors = _tensors(path)
    tensors["conv2.lin.weight"] = tensors["conv2.lin.weight"].double()
    _resign(path, tensors=tensors)
    cli("predict", path, "--text", "code chip").assert_user_error(
        "model.safetensors", "'conv2.lin.weight' has dtype float64, expected float32")


def _run_predict(cli, path: Path):
    return cli("predict", path, "--text", "code chip")


def test_a_repeated_vocabulary_word_is_refused(saved_model, cli, tmp_path):
    path = _copy(saved_model, tmp_path / "m")
    vocab = json.loads((path / "vocab.json").read_text(encoding="utf-8"))
    vocab[1] = vocab[0]
    _resign(path, vocab=vocab)
    _run_predict(cli, path).assert_user_error("vocab.json", f"word {vocab[0]!r} repeats",
                                              "entries 0 and 1")


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
@pytest.mark.parametrize("tensor", ["h_words", "conv2.lin.weight", "idf"])
def test_non_finite_weights_are_refused(saved_model, cli, tmp_path, tensor, value):
    path = _copy(saved_model, tmp_path / "m")
    tensors = _tensors(path)
    tensors[tensor].view(-1)[0] = value
    _resign(path, tensors=tensors)
    _run_predict(cli, path).assert_user_error(f"'{tensor}' holds non-finite values")


@pytest.mark.parametrize(("prior", "problem"), [
    ([0.5, 0.5, 0.5], "sums to 1.5"),
    ([1.5, -0.25, -0.25], "outside [0, 1]"),
])
def test_a_prior_that_is_not_a_probability_vector_is_refused(saved_model, cli, tmp_path,
                                                             prior, problem):
    path = _copy(saved_model, tmp_path / "m")
    tensors = _tensors(path)
    tensors["prior"] = torch.tensor(prior, dtype=torch.float64)
    _resign(path, tensors=tensors)
    _run_predict(cli, path).assert_user_error("'prior'", problem)


def test_degrees_that_are_not_positive_are_refused(saved_model, cli, tmp_path):
    path = _copy(saved_model, tmp_path / "m")
    tensors = _tensors(path)
    tensors["deg_words"][0] = 0.0
    _resign(path, tensors=tensors)
    _run_predict(cli, path).assert_user_error("'deg_words' holds degrees <= 0")


def test_cbp_hash_indices_outside_the_sketch_are_refused(trained_models, cli, tmp_path):
    path = _copy(trained_models("cbp"), tmp_path / "m")
    tensors = _tensors(path)
    tensors["conv2.hash1"][0] = 10**6
    _resign(path, tensors=tensors)
    _run_predict(cli, path).assert_user_error("second layer cbp", "hash1 holds indices outside")


def test_layer_options_naming_a_huge_layer_are_refused_without_allocating(
        trained_models, cli, tmp_path):
    path = _copy(trained_models("cbp"), tmp_path / "m")
    _resign(path, edit=lambda cfg: cfg["model"]["layer_options"].update(sketch_dim=10**12))
    _run_predict(cli, path).assert_user_error("'conv2.lin.weight' has shape",
                                              "model.layer_options give")


@pytest.mark.parametrize(("edit", "field"), [
    (lambda cfg: cfg["model"].update(name="sgc"), "model.name"),
    (lambda cfg: cfg["model"].update(layer_options={"no_such_option": 1}),
     "model.layer_options"),
    (lambda cfg: cfg["model"].update(layer_options={"eps": [[[]]]}), "model.layer_options"),
])
def test_a_malformed_model_field_is_named(saved_model, cli, tmp_path, edit, field):
    path = _copy(saved_model, tmp_path / "m")
    _resign(path, edit=edit)
    _run_predict(cli, path).assert_user_error("config.json", f"{field}:")


def test_a_deeply_nested_configuration_is_one_line(saved_model, cli, tmp_path):
    path = _copy(saved_model, tmp_path / "m")
    text = (path / "config.json").read_text(encoding="utf-8").rstrip()
    deep = "[" * 100_000 + "]" * 100_000
    (path / "config.json").write_text(text[:-1] + f', "extra": {deep}}}', encoding="utf-8")
    _run_predict(cli, path).assert_user_error("config.json", "nested too deeply")


@pytest.fixture(scope="module")
def combined_model(tmp_path_factory) -> Path:
    """A combined model directory (graph + TF-IDF/LR, as ``train --auto --save`` writes one
    when the combination wins)."""
    from gfbgcn.text.corpus.table import load_table
    from tests.text.toydata import save_combined_model

    root = tmp_path_factory.mktemp("combined")
    corpus = load_table(write_csv(root / "corpus.csv", documents()))
    path = root / "model"
    save_combined_model(path, corpus, epochs=2, hidden=8)
    return path


def _resign_linear(path: Path, *, meta=None, arrays=None) -> None:
    from safetensors.numpy import save_file as save_numpy

    if meta is not None:
        (path / "linear.json").write_text(json.dumps(meta), encoding="utf-8")
    if arrays is not None:
        save_numpy(arrays, str(path / "linear.safetensors"))

    def sign(cfg: dict) -> None:
        cfg["combined"]["sha256"] = {name: sha256_file(path / name)
                                     for name in ("linear.safetensors", "linear.json")}

    _resign(path, edit=sign)


def test_a_combined_model_loads_and_predicts(combined_model, cli):
    assert cli("predict", combined_model, "--text", "code chip").status == 0


def _repeat_a_word(meta: dict) -> None:
    """A vocabulary with a repeated entry: the n-gram baseline's word vocabulary."""
    words = meta["features"]["word_vocab"]
    words[1] = words[0]


def _linear_meta(path: Path) -> dict:
    return json.loads((path / "linear.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize(("edit", "fragment"), [
    (lambda m: _repeat_a_word(m), "word_vocab: expected a list of distinct strings"),
    (lambda m: m.update(label_names="food"), "linear.json: label_names"),
    (lambda m: m.update(C=float("nan")), "linear.json: C: expected a finite number"),
    (lambda m: m.update(tokenizer=None), "linear.json: tokenizer"),
    (lambda m: m.clear(), "linear.json: vocab"),
    # the unigram format of the models saved before the n-gram baseline: retrain
    (lambda m: m.pop("features"), "unigram format saved before 2026-11-26, which this gfbgcn "
                                  "no longer reads: train the model again"),
])
def test_a_malformed_linear_part_is_refused(combined_model, cli, tmp_path, edit, fragment):
    path = _copy(combined_model, tmp_path / "m")
    meta = _linear_meta(path)
    edit(meta)
    _resign_linear(path, meta=meta)
    _run_predict(cli, path).assert_user_error(fragment)


def test_non_finite_linear_weights_are_refused(combined_model, cli, tmp_path):
    from safetensors.numpy import load_file as load_numpy

    path = _copy(combined_model, tmp_path / "m")
    arrays = dict(load_numpy(str(path / "linear.safetensors")))
    arrays["coef"] = arrays["coef"].copy()
    arrays["coef"][0, 0] = np.nan
    _resign_linear(path, arrays=arrays)
    _run_predict(cli, path).assert_user_error("linear.safetensors", "'coef' holds non-finite")


@pytest.mark.parametrize(("edit", "field"), [
    (lambda cfg: cfg["combined"].update(sha256="x"), "combined.sha256"),
    (lambda cfg: cfg["combined"].pop("weight"), "combined.weight"),
])
def test_a_malformed_combined_entry_is_named(combined_model, cli, tmp_path, edit, field):
    path = _copy(combined_model, tmp_path / "m")
    _resign(path, edit=edit)
    _run_predict(cli, path).assert_user_error("config.json", f"{field}:")


def test_a_deeply_nested_linear_meta_is_one_line(combined_model, cli, tmp_path):
    path = _copy(combined_model, tmp_path / "m")
    (path / "linear.json").write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    _resign_linear(path)
    _run_predict(cli, path).assert_user_error("linear.json", "nested too deeply")

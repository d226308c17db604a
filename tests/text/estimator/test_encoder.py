"""The classifier with a frozen sentence encoder (``encoder=``), on a tiny random BERT built in
the test: the corpus embedded once, the baseline with the embeddings beside its n-grams, graph
document features from the embeddings, ``auto``'s encoder candidates, and a saved model that
embeds new documents with the same encoder, refuses another, and pickles without it."""

from __future__ import annotations

import json
import pickle
import shutil
from pathlib import Path

import numpy as np
import pytest

import gfbgcn
from gfbgcn import TextGCNClassifier
from gfbgcn.cli import main
from gfbgcn.core.errors import MissingExtraError, ModelLoadError
from gfbgcn.text.estimator import fitting
from gfbgcn.text.predict.combined import CombinedPredictor
from gfbgcn.text.train.features.encoder import DocEmbeddings, EncoderDocFeatures
from tests.text.search.test_own_corpus import tiny_corpus, write_csv

FAST = {"hidden": 8, "epochs": 4, "window": 3, "min_freq": 1, "random_state": 0,
        "build_workers": 1, "device": "cpu"}
NEW = ["Tekma gol", "Banka denar obresti", "nothing known here"]


@pytest.fixture(scope="module")
def bert(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("transformers")
    from tests.text.encoder.tinybert import write_plain

    return write_plain(tmp_path_factory.mktemp("encoder") / "tiny-bert")


@pytest.fixture(autouse=True)
def _offline_and_cached(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("GFBGCN_CACHE", str(tmp_path / "cache"))


def test_features_encoder_trains_on_the_embeddings_and_saves_the_encoder(bert, tmp_path):
    corpus = tiny_corpus(60)
    clf = TextGCNClassifier(**FAST, encoder=str(bert), features="encoder").fit_corpus(corpus)
    model = clf.result_.model
    assert isinstance(model.source, DocEmbeddings) and model.features.shape[1] == 32
    # word rows: each word's own embedding, scaled as the documents' (defaults chosen on validation)
    graph = clf.graph_
    words = model.source.embed(graph.vocab[:3]) * model.source.scale  # FEATURE_SCALE
    np.testing.assert_allclose(model.features[len(corpus):len(corpus) + 3].numpy(), words,
                               rtol=1e-5, atol=1e-6)
    # the baseline beside it: the n-grams with the embeddings in one SVM
    assert clf.baseline_.model.uses_encoder and clf.baseline_.model.ngrams is not None
    path = clf.save(tmp_path / "model")
    config = json.loads((path / "config.json").read_text(encoding="utf-8"))
    assert config["encoder"]["name"] == str(bert.resolve()) and config["encoder"]["dim"] == 32
    assert config["features"]["kind"] == "encoder"
    loaded = gfbgcn.load(path)
    assert isinstance(loaded.features, EncoderDocFeatures)
    np.testing.assert_allclose(loaded.predict_proba(NEW), clf.predictor_.predict_proba(NEW),
                               rtol=1e-5, atol=1e-6)
    again = TextGCNClassifier.load(path)
    np.testing.assert_allclose(again.predict_proba(NEW), clf.predict_proba(NEW), rtol=1e-5,
                               atol=1e-6)


def test_features_encoder_needs_an_encoder():
    from gfbgcn.core.errors import OptionError

    with pytest.raises(OptionError, match="features encoder needs an encoder"):
        TextGCNClassifier(features="encoder").resolve_settings()
    with pytest.raises(OptionError, match="encoder must be a directory or a model name"):
        TextGCNClassifier(encoder="  ").resolve_settings()


def test_a_moved_encoder_is_given_again_and_a_changed_one_refused(bert, tmp_path):
    mine = Path(shutil.copytree(bert, tmp_path / "mine"))
    clf = TextGCNClassifier(**FAST, encoder=str(mine), features="encoder")
    path = clf.fit_corpus(tiny_corpus(40)).save(tmp_path / "model")
    expected = gfbgcn.load(path).predict_proba(NEW)
    moved = mine.rename(tmp_path / "moved")
    with pytest.raises(ModelLoadError, match=r"encoder=DIR \(gfbgcn predict --encoder DIR\)"):
        gfbgcn.load(path)
    np.testing.assert_allclose(gfbgcn.load(path, encoder=str(moved)).predict_proba(NEW),
                               expected, rtol=1e-6)
    from safetensors.torch import load_file, save_file

    weights = load_file(moved / "model.safetensors")
    name = next(iter(weights))
    weights[name] = weights[name] + 0.5  # another encoder under the same name
    save_file(weights, str(moved / "model.safetensors"))
    with pytest.raises(ModelLoadError, match="is not the recorded one"):
        gfbgcn.load(path, encoder=str(moved))


def test_without_the_extra_the_encoder_fails_in_one_line(bert, monkeypatch):
    from gfbgcn.core import extras

    real = extras.importlib.import_module

    def missing(name: str, *args, **kwargs):
        if name == "transformers":
            err = ModuleNotFoundError("No module named 'transformers'")
            err.name = "transformers"
            raise err
        return real(name, *args, **kwargs)

    monkeypatch.setattr(extras.importlib, "import_module", missing)
    with pytest.raises(MissingExtraError, match=r"pip install 'gfbgcn\[encoders\]'"):
        TextGCNClassifier(**FAST, encoder=str(bert)).fit_corpus(tiny_corpus(40))


def test_the_corpus_is_embedded_once_a_fit_and_through_the_cache(bert, monkeypatch):
    from gfbgcn.text import encoder as encoder_package
    from gfbgcn.text.encoder.embed import SentenceEncoder

    calls: list[int] = []
    embed = SentenceEncoder.embed

    def counting(self, texts, **kwargs):
        calls.append(len(texts))
        return embed(self, texts, **kwargs)

    monkeypatch.setattr(SentenceEncoder, "embed", counting)
    corpus = tiny_corpus(40)
    clf = TextGCNClassifier(**FAST, encoder=str(bert), features="encoder").fit_corpus(corpus)
    words = clf.graph_.num_words
    assert calls == [len(set(corpus.texts)), words]  # every distinct document once, the words
    TextGCNClassifier(**FAST, encoder=str(bert), features="encoder").fit_corpus(corpus)
    assert calls == [len(set(corpus.texts)), words]  # the second fit read both from the cache
    assert encoder_package.EmbeddingCache  # the cache is the package's


def test_a_pickled_classifier_embeds_with_its_encoder_again(bert):
    clf = TextGCNClassifier(**FAST, encoder=str(bert), features="encoder")
    clf.fit_corpus(tiny_corpus(40))
    back = pickle.loads(pickle.dumps(clf))
    np.testing.assert_allclose(back.predict_proba(NEW), clf.predict_proba(NEW), rtol=1e-6)


def test_auto_tries_the_encoder_three_ways_and_saves_its_choice(bert, tmp_path, capsys):
    corpus = tiny_corpus(80, noise=0.5)
    path = tmp_path / "corpus.csv"
    write_csv(corpus, path)
    out, model = tmp_path / "run", tmp_path / "model"
    assert main(["train", "--dataset", str(path), "--auto", "--encoder", str(bert), "--hidden",
                 "8", "--epochs", "4", "--min-freq", "1", "--quiet", "--threads", "1",
                 "--build-workers", "1", "--out", str(out), "--save", str(model)]) == 0
    table = (out / "auto.csv").read_text(encoding="utf-8")
    rows = [line.split(",") for line in table.splitlines()[1:]]
    features = [r[5] for r in rows]
    assert features[:3] == ["ngram-tfidf", "encoder", "ngram-tfidf+encoder"]  # linear first
    assert "encoder" in features[3:]  # a graph candidate on the embeddings
    capsys.readouterr()
    assert main(["predict", str(model), "--text", NEW[0], "--text", NEW[1]]) == 0
    printed = capsys.readouterr().out
    loaded = gfbgcn.load(model)
    assert loaded.predict(NEW[:2]).labels == [row.split(",")[1] for row in
                                              printed.strip().splitlines()[1:]]
    assert isinstance(loaded, CombinedPredictor)  # auto serves a combined predictor


def test_embed_corpus_records_a_directory_by_its_absolute_path(bert, monkeypatch):
    monkeypatch.chdir(bert.parent)
    embedded = fitting.embed_corpus(bert.name, tiny_corpus(20), "cpu", cache=False,
                                    progress=False)
    assert embedded.identity["name"] == str(bert.resolve())
    assert embedded.embeddings.shape == (20, 32)
    np.testing.assert_allclose(np.linalg.norm(embedded.embeddings, axis=1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(embedded.embed(tiny_corpus(20).texts[:3]),
                               embedded.embeddings[:3], rtol=1e-5, atol=1e-6)


def test_fine_tuning_trains_the_encoder_and_saves_it_with_the_model(bert, tmp_path, capsys):
    corpus = tiny_corpus(60)
    path = tmp_path / "corpus.csv"
    write_csv(corpus, path)
    model = tmp_path / "model"
    assert main(["train", "--dataset", str(path), "--encoder", str(bert), "--encoder-finetune",
                 "--hidden", "8", "--epochs", "3", "--min-freq", "1", "--threads", "1",
                 "--build-workers", "1", "--no-baseline", "--save", str(model)]) == 0
    err = capsys.readouterr().err
    assert "fine-tuning on cpu: about" in err  # the estimate, before training
    config = json.loads((model / "config.json").read_text(encoding="utf-8"))
    assert config["encoder"]["name"] == "encoder" and (model / "encoder" / "modules.json").is_file()
    loaded = gfbgcn.load(model)
    from gfbgcn.text.mixture import WEIGHT_GRID

    # the weight of the predictions: chosen on validation after training, on the grid
    assert isinstance(loaded, CombinedPredictor) and loaded.weight in WEIGHT_GRID
    assert loaded.linear.kind == "finetuned-head"
    # the pretrained encoder is not the saved one: the model embeds with its own
    from gfbgcn.text.encoder import load_encoder

    tuned = load_encoder(model / "encoder")
    assert tuned.identity.digest != load_encoder(bert).identity.digest
    probs = loaded.predict_proba(NEW)
    assert probs.shape == (3, 2) and np.allclose(probs.sum(1), 1.0)
    moved = Path(shutil.copytree(model, tmp_path / "moved"))
    np.testing.assert_allclose(gfbgcn.load(moved).predict_proba(NEW), probs, rtol=1e-5)


def test_fine_tuning_needs_an_encoder_and_one_full_batch_model():
    from gfbgcn.core.errors import OptionError

    with pytest.raises(OptionError, match="encoder_finetune needs an encoder"):
        TextGCNClassifier(encoder_finetune=True).resolve_settings()
    for bad, words in (({"auto": True}, "drop auto"), ({"batch_size": 8}, "full batch"),
                       ({"features": "ngram"}, "drop features"),
                       ({"model": "sgc"}, "not sgc")):
        with pytest.raises(OptionError, match=words):
            TextGCNClassifier(encoder="x", encoder_finetune=True, **bad).resolve_settings()

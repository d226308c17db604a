"""Saving a trained Text GCN for inductive prediction, and loading it back safely.

A model directory holds three files:

* ``model.safetensors``: tensors only (never pickle): the word rows of ``W1`` (``w1_words``),
  the word nodes' layer-1 outputs in the training graph (``h_words``), the training degrees of
  the word nodes (``deg_words``), the training IDF (``idf``), the mean training-document row of
  ``W1`` (``w1_doc_mean``), the training label frequencies (``prior``) and the second layer's
  state dict (``conv2.*``).  Document rows of ``W1`` are not kept: they are not needed to
  classify new text.
  With pretrained input features (:mod:`gfbgcn.text.train.features`), ``w1_words`` holds the word
  rows of ``W1 + F W2`` and two more tensors are kept: the words' feature vectors
  (``feature_words`` ``[V, f]``) and ``feature_w2`` ``[f, hidden]``; ``config.json`` says
  which features (``features``; absent or ``onehot``: identity only).  With n-gram document
  features (``ngram``) ``feature_w2`` and the n-grams' IDF (``feature_idf``) are kept, and
  ``config.json``'s ``features`` holds the n-gram vocabularies
  (:class:`~gfbgcn.text.train.features.ngrams.NgramDocFeatures`).
* ``vocab.json``: the vocabulary (word ``i`` is row ``i`` of every word table).
* ``config.json``, written last: format version, model and graph settings, tokenizer name,
  label names, multi-label settings, package versions, a hash of the training data
  (``TextGraph.key`` and the corpus digest), the tensor shapes, the sha256 of the two other
  files and ``config_sha256``, the digest of its own other fields (an edited label name is
  refused).  Loading verifies all of it and fails with a :class:`ModelLoadError` naming the
  problem; a missing ``config.json`` means an incomplete directory.

The directory is written as a whole (:mod:`gfbgcn.core.atomic`): under a temporary sibling
name, then swapped into place, so re-saving never leaves the previous model unloadable.

Only the built-in tokenizers are reloadable by name; a model trained with a custom tokenizer
must be loaded with ``load_model(path, tokenizer=the_same_callable)``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import torch
from safetensors.torch import save_file

from gfbgcn.core.atomic import atomic_directory
from gfbgcn.core.device import resolve_device
from gfbgcn.core.errors import ModelLoadError
from gfbgcn.core.io import (
    atomic_write,
    atomic_write_json,
    atomic_write_text,
    json_digest,
    sha256_file,
)
from gfbgcn.core.runinfo import package_versions
from gfbgcn.text.corpus.labels import multi_hot, split_labels
from gfbgcn.text.graph.cache import corpus_digest
from gfbgcn.text.predict.combined import CombinedPredictor, load_combined
from gfbgcn.text.predict.inductive import InductiveTextGCN
from gfbgcn.text.predict.model_files import (
    check_tensors,
    check_versions,
    checked_file,
    read_checked_config,
    read_tensors,
    read_vocabulary,
)
from gfbgcn.text.predict.model_schema import (
    CONFIG,
    FORMAT,
    FORMAT_VERSION,
    VOCAB,
    WEIGHTS,
)
from gfbgcn.text.predict.saved_encoder import (
    ENCODER_ENTRY,
    attach_encoder,
    encoder_record,
    load_saved_encoder,
)
from gfbgcn.text.tokenize.clean import Tokenizer
from gfbgcn.text.tokenize.registry import resolve_tokenizer, tokenizer_from_name
from gfbgcn.text.train.features import saved_features
from gfbgcn.text.train.models import make_second_layer


def save_model(
    path: str | Path,
    predictor: InductiveTextGCN,
    *,
    graph_config: dict[str, Any] | None = None,
    train_config: dict[str, Any] | None = None,
    layer_options: dict[str, Any] | None = None,
    hidden: int | None = None,
    data_hash: dict[str, Any] | None = None,
    label_sep: str | None = None,
    metrics: dict[str, Any] | None = None,
    extra: dict[str, Any] | None = None,
    extra_writer: Callable[[Path], dict[str, Any]] | None = None,
) -> Path:
    """Write ``predictor`` (see :meth:`InductiveTextGCN.from_trained`) to directory ``path``.

    The directory is written as a whole beside the old one, which stays loadable until the new
    one is complete (:mod:`gfbgcn.core.atomic`).

    ``extra``: more top-level entries of ``config.json``; ``extra_writer(staging_dir)`` writes
    more files into the directory being built and returns such entries (e.g. ``combined``, see
    :mod:`gfbgcn.text.predict.combined`), so they are part of the same atomic replacement.
    """
    with atomic_directory(path, "model", "save") as out:
        if extra_writer is not None:
            extra = {**(extra or {}), **extra_writer(out)}
        _write_files(out, predictor, {
            "graph": dict(graph_config or {}), "train": dict(train_config or {}),
            "training_data": dict(data_hash or {}), "metrics": metrics or {}, **(extra or {}),
        }, layer_options=layer_options, hidden=hidden, label_sep=label_sep)
    return Path(path)


def _write_files(out: Path, predictor: InductiveTextGCN, settings: dict[str, Any], *,
                 layer_options: dict[str, Any] | None, hidden: int | None,
                 label_sep: str | None) -> None:
    """Weights, vocabulary and ``config.json`` of a model directory, written into ``out`` (a
    staging directory); ``settings``: the entries of ``config.json`` the caller gives as they
    are (``graph``, ``train``, ``training_data``, ``metrics`` and any ``extra``)."""
    tensors = {
        "w1_words": predictor.w1_words,
        "h_words": predictor.h_words,
        "deg_words": predictor.deg_words,
        "w1_doc_mean": predictor.w1_doc_mean,
        "idf": torch.from_numpy(np.asarray(predictor.idf, dtype=np.float64)),
        "prior": torch.from_numpy(np.asarray(predictor.prior, dtype=np.float64)),
    }
    for name, value in predictor.conv2.state_dict().items():
        tensors[f"conv2.{name}"] = value
    if predictor.features is not None:  # pretrained input features (text/train/features/)
        tensors.update(predictor.features.tensors())
    record = encoder_record(predictor)
    if record is not None:
        settings = {ENCODER_ENTRY: record, **settings}
    # on the host, whatever device the model is on: a saved model loads on any device
    tensors = {k: v.detach().cpu().contiguous().clone() for k, v in tensors.items()}
    atomic_write(out / WEIGHTS, lambda tmp: save_file(tensors, str(tmp)))
    atomic_write_text(out / VOCAB, json.dumps(predictor.vocab, ensure_ascii=False))
    config = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "model": {
            "name": predictor.model_name,
            "hidden": int(hidden or predictor.w1_words.shape[1]),
            "num_classes": len(predictor.label_names),
            "layer_options": dict(layer_options or {}),
            "dtype": str(predictor.w1_words.dtype).replace("torch.", ""),
        },
        "labels": {
            "names": list(predictor.label_names),
            "multi_label": predictor.multi_label,
            "threshold": predictor.threshold if predictor.multi_label else None,
            "separator": label_sep,
        },
        "tokenizer": {
            "name": predictor.tokenizer_name,
            "reloadable_by_name": _reloadable(predictor.tokenizer_name),
        },
        "inductive": {"self_embedding": predictor.self_embedding},
        "features": predictor.features.info if predictor.features else {"kind": "onehot"},
        "shapes": {k: list(v.shape) for k, v in tensors.items()},
        "num_words": len(predictor.vocab),
        "versions": package_versions(),
        "sha256": {WEIGHTS: sha256_file(out / WEIGHTS), VOCAB: sha256_file(out / VOCAB)},
        **settings,
    }
    config["config_sha256"] = json_digest(config)  # config.json is covered too
    atomic_write_json(out / CONFIG, config)


def _reloadable(name: str) -> bool:
    return tokenizer_from_name(name) is not None


def load_model(
    path: str | Path,
    *,
    tokenizer: Tokenizer | None = None,
    self_embedding: str | None = None,
    device: str | torch.device | None = None,
    encoder: str | None = None,
) -> InductiveTextGCN | CombinedPredictor:
    """Load a model directory written by :func:`save_model` (``gfbgcn train --save``).

    The tensors are read on the CPU and then moved to ``device`` (``auto``, the default: the
    first CUDA GPU if torch sees one, else the CPU; or ``cpu``, ``cuda``, ``cuda:N``), so a
    model saved on any device loads on any other.  A combined model (graph + TF-IDF/LR, see
    :mod:`gfbgcn.text.predict.combined`) keeps its linear part on the CPU.  A model that uses a
    sentence encoder loads it from where it was (or from ``encoder``: the same files elsewhere)
    and checks it is the same (:mod:`gfbgcn.text.predict.saved_encoder`).
    """
    return load_model_and_config(path, tokenizer=tokenizer, self_embedding=self_embedding,
                                 device=device, encoder=encoder)[0]


def load_model_and_config(
    path: str | Path,
    *,
    tokenizer: Tokenizer | None = None,
    self_embedding: str | None = None,
    device: str | torch.device | None = None,
    encoder: str | None = None,
) -> tuple[InductiveTextGCN | CombinedPredictor, dict[str, Any]]:
    """:func:`load_model` and the model's ``config.json`` it checked (read once, for a caller
    that needs more of it: the label separator, the classifier's parameters)."""
    target = resolve_device(device)  # an absent GPU fails before the files are read
    path = Path(path)
    config = read_checked_config(path)
    check_versions(config["versions"], path)
    weights = checked_file(path, WEIGHTS, config)
    vocab = read_vocabulary(checked_file(path, VOCAB, config))
    tensors = read_tensors(weights)
    with torch.device("meta"):  # shapes and dtypes only: options naming a huge layer cost nothing
        reference = _fresh_second_layer(path, config["model"]).state_dict()
    check_tensors(tensors, config, len(vocab), weights, path, reference)
    record = config.get(ENCODER_ENTRY)
    predictor = _predictor(path, config, tensors, vocab, tokenizer, self_embedding,
                           _fresh_second_layer(path, config["model"])).to(target)
    loaded: InductiveTextGCN | CombinedPredictor = predictor
    if "combined" in config:  # graph model + TF-IDF/LR, see gfbgcn.text.predict.combined
        dim = int(record.get("dim", 0)) if isinstance(record, dict) else 0
        loaded = load_combined(path, config["combined"], predictor, ModelLoadError, dim)
    if record is not None:  # after the cheap checks: loading an encoder takes seconds
        attach_encoder(loaded, load_saved_encoder(path, record, target, encoder), record)
    return loaded, config


def _fresh_second_layer(path: Path, model: dict[str, Any]) -> torch.nn.Module:
    """The second layer the configuration describes (name and options), untrained, in the
    model's dtype.  Built on the ``meta`` device first, its state dict says which shape and
    dtype each saved ``conv2.*`` tensor must have before anything is allocated."""
    hidden, c = int(model["hidden"]), int(model["num_classes"])
    try:
        conv2 = make_second_layer(model["name"], hidden, c, **model["layer_options"])
    except (ValueError, TypeError, OverflowError, RuntimeError) as err:
        # options a re-signed configuration may hold: unknown names, wrong types, huge sizes
        raise ModelLoadError(f"{path / CONFIG}: model.layer_options: {err}") from err
    except MemoryError:
        raise ModelLoadError(f"{path / CONFIG}: model.layer_options: the layer they describe "
                             "does not fit in memory") from None
    # floating parameters and buffers in the tables' dtype (the computation mixes them);
    # integer buffers such as CBP's hash indices keep theirs
    return conv2.to(getattr(torch, model["dtype"]))


def _second_layer(path: Path, model: dict[str, Any], tensors: dict[str, torch.Tensor],
                  conv2: torch.nn.Module) -> torch.nn.Module:
    """The saved second layer: ``conv2`` (from :func:`_fresh_second_layer`) with its saved
    state dict."""
    state = {k[len("conv2."):]: t for k, t in tensors.items() if k.startswith("conv2.")}
    try:
        conv2.load_state_dict(state, strict=True)
    except RuntimeError as err:
        raise ModelLoadError(f"{path / WEIGHTS}: second-layer weights do not fit "
                             f"{model['name']}: {err}") from err
    check_state = getattr(conv2, "check_state", None)  # a layer's own rules for its buffers
    if check_state is not None:
        try:
            check_state()
        except ValueError as err:
            raise ModelLoadError(f"{path / WEIGHTS}: second layer {model['name']}: "
                                 f"{err}") from err
    return conv2


def _predictor(path: Path, config: dict[str, Any], tensors: dict[str, torch.Tensor],
               vocab: list[str], tokenizer: Tokenizer | None,
               self_embedding: str | None, conv2: torch.nn.Module) -> InductiveTextGCN:
    """The inductive predictor of a checked model directory, on the CPU."""
    m, labels = config["model"], config["labels"]
    try:
        tok = resolve_tokenizer(config["tokenizer"]["name"], tokenizer)
        features = saved_features(tensors, config["features"], len(vocab), int(m["hidden"]),
                                  config.get(ENCODER_ENTRY))
    except ValueError as err:
        raise ModelLoadError(f"{path}: {err}") from err
    return InductiveTextGCN(
        vocab=vocab,
        idf=tensors["idf"].numpy().astype(np.float64),
        deg_words=tensors["deg_words"],
        w1_words=tensors["w1_words"],
        h_words=tensors["h_words"],
        w1_doc_mean=tensors["w1_doc_mean"],
        conv2=_second_layer(path, m, tensors, conv2),
        label_names=list(labels["names"]),
        prior=tensors["prior"].numpy().astype(np.float64),
        model_name=m["name"],
        tokenizer_name=config["tokenizer"]["name"],
        tokenizer=tok,
        multi_label=labels["multi_label"],
        threshold=float(labels.get("threshold") or 0.5),
        self_embedding=self_embedding or config["inductive"]["self_embedding"],
        features=features,
    )


def read_config(path: str | Path) -> dict[str, Any]:
    """The validated ``config.json`` of a model directory."""
    return read_checked_config(Path(path))


def graph_config_dict(graph) -> dict[str, Any]:
    """The graph settings recorded with a model."""
    return {**asdict(graph.config), "tokenizer": graph.tokenizer, "corpus": graph.corpus_name,
            "num_docs": graph.num_docs, "num_words": graph.num_words}


def trained_settings(result, graph, corpus, label_sep: str | None = None) -> dict[str, Any]:
    """The settings :func:`save_model` records for a trained run (its keyword arguments but
    ``extra``): small, so a fitted classifier keeps them instead of the graph and the corpus
    (:class:`gfbgcn.TextGCNClassifier` saves from its predictor and these).  ``label_sep``: the
    label separator of a multi-label run."""
    return dict(
        graph_config=graph_config_dict(graph),
        train_config=asdict(result.config),
        layer_options=result.config.layer_options,
        hidden=result.config.hidden,
        data_hash={"graph_key": graph.key, "corpus_sha256": corpus_digest(corpus),
                   "num_docs": graph.num_docs, "train_docs": int(graph.is_train.sum())},
        label_sep=label_sep,
        metrics={"test": None if result.test is None else
                 {k: v for k, v in result.test.items() if k != "confusion_matrix"},
                 "best_epoch": result.best_epoch, "device": result.device},
    )


def save_trained(path: str | Path, result, graph, corpus, label_names=None,
                 label_sep: str = "|", extra: dict[str, Any] | None = None,
                 extra_writer: Callable[[Path], dict[str, Any]] | None = None) -> Path:
    """Save a :class:`~gfbgcn.text.train.config.TrainResult` of a two-layer model for prediction.

    ``label_names``: the individual labels of a multi-label run (``None`` for single-label);
    ``label_sep`` joins them in the corpus's label field.
    """
    prior = None
    if label_names is not None:  # multi-label: per-label frequency over the training documents
        y, _ = multi_hot(split_labels(corpus.labels, label_sep), label_names)
        prior = y[graph.is_train].mean(0).astype(np.float64)
    predictor = InductiveTextGCN.from_trained(
        result.model, graph, result.config.model, multi_label=label_names is not None,
        threshold=result.threshold or 0.5, prior=prior,
    )
    if label_names is not None:
        predictor.label_names = list(label_names)
    settings = trained_settings(result, graph, corpus,
                                label_sep if label_names is not None else None)
    return save_model(path, predictor, **settings, extra=extra, extra_writer=extra_writer)

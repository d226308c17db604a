"""What :class:`~gfbgcn.TextGCNClassifier` does around training: the corpus embedded by a
frozen encoder (``encoder``), the batching of ``batch_size="auto"``, the targets and predictor
of a multi-label run, and the linear baseline fitted beside the graph model (``baseline_``)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import torch

from gfbgcn.core.memory import release_free_memory
from gfbgcn.text.corpus.corpus import Corpus
from gfbgcn.text.corpus.labels import multi_hot, split_labels, warn_if_no_separator
from gfbgcn.text.corpus.weights import ClassWeight
from gfbgcn.text.graph.text_graph import TextGraph
from gfbgcn.text.linear.baseline import (
    BaselineResult,
    LinearTextModel,
    baseline_for_graph,
    graph_split,
)
from gfbgcn.text.linear.encoder import fit_ngram_encoder
from gfbgcn.text.linear.multilabel import multilabel_baseline_for_graph
from gfbgcn.text.predict.inductive import InductiveTextGCN
from gfbgcn.text.train.batching import (
    Batching,
    adjacency_entries,
    available_bytes,
    choose_batching,
)
from gfbgcn.text.train.config import TrainConfig, TrainResult
from gfbgcn.text.train.distributed import rank_zero_first
from gfbgcn.text.train.features.encoder import CorpusEmbeddings, encoder_input
from gfbgcn.text.train.features.inputs import DocInput
from gfbgcn.text.train.features.ngrams import ngram_input
from gfbgcn.text.train.hooks import EpochCallback


def chosen_batching(config: TrainConfig, graph: TextGraph, device: torch.device,
                    multi_label: bool) -> tuple[Batching, TrainConfig]:
    """``batch_size="auto"``: full batch or the row-budget mini-batch setting, from the graph's
    size and the memory free on ``device`` (:mod:`gfbgcn.text.train.batching`); the choice and
    ``config`` with it (checked again)."""
    choice = choose_batching(
        graph.num_nodes, adjacency_entries(graph.num_nodes, graph.num_doc_word,
                                           graph.num_word_word),
        model=config.model, hidden=config.hidden, available=available_bytes(device),
        fit_docs=int(graph.is_train.sum() * (1 - config.val_ratio)),
        multi_label=multi_label, weight_decay=config.weight_decay)
    if not choice.batch_size:
        return choice, config
    # choose_batching sets both whenever it picks mini-batches
    assert choice.fanout is not None and choice.optimizer is not None
    return choice, replace(config, batch_size=choice.batch_size, fanout=choice.fanout,
                           row_budget=choice.row_budget, optimizer=choice.optimizer)


def doc_input_for(config: TrainConfig, corpus: Corpus, graph: TextGraph,
                  embeddings: CorpusEmbeddings | None = None) -> DocInput | None:
    """The documents' input rows ``features="ngram"`` or ``"encoder"`` trains on (None for the
    other kinds)."""
    if config.features == "ngram":
        return ngram_input(corpus.texts, graph)
    if config.features == "encoder":
        assert embeddings is not None  # resolve_settings requires the encoder
        return encoder_input(embeddings, graph)
    return None


def embed_corpus(encoder: str, corpus: Corpus, device: torch.device, cache: bool,
                 progress: bool) -> CorpusEmbeddings:
    """The documents of ``corpus`` embedded by the frozen encoder ``encoder`` (a directory or
    a model name, loaded once here on ``device``), through the embedding cache unless
    ``cache`` is false (:func:`gfbgcn.text.encoder.embed_documents`); the same encoder embeds
    other texts (new documents, words) without the cache.  A directory is recorded by its
    absolute path, so that a saved model finds it from anywhere."""
    from gfbgcn.text.encoder import EncoderIdentity, embed_documents, load_encoder
    from gfbgcn.text.encoder.embedder import Embedder

    start = time.perf_counter()
    model = load_encoder(encoder, device=device)
    vectors = embed_documents(model, corpus.texts, cache=cache, progress=progress)
    identity = model.identity.to_dict()
    if Path(encoder).is_dir():
        identity["name"] = str(Path(encoder).resolve())
    embedder = Embedder(EncoderIdentity.from_dict(identity), device=device, encoder=model)
    return CorpusEmbeddings(vectors, embedder, identity, time.perf_counter() - start,
                            embed_many=lambda texts: embed_documents(model, texts, cache=cache))


def finetune_model(corpus: Corpus, graph: TextGraph, encoder: str, config: TrainConfig,
                   device: torch.device, progress: bool, log: Callable[[str], None],
                   on_epoch: EpochCallback | None = None
                   ) -> tuple[TrainResult, LinearTextModel, float]:
    """The encoder ``encoder`` fine-tuned jointly with the graph model of ``config`` on
    ``graph`` (:func:`gfbgcn.text.train.finetune.train_finetune`, its time estimate logged
    first): ``(the run as a TrainResult (the mixture's probabilities and metrics, the graph
    model), the linear head as a linear model on the fine-tuned embeddings, the graph part's
    weight)``.  Both parts embed new documents with the fine-tuned encoder, which a saved
    model keeps beside its own files.  ``on_epoch``: given each epoch's history entry
    (:data:`~gfbgcn.text.train.hooks.EpochCallback`)."""
    from gfbgcn.text.encoder import load_encoder
    from gfbgcn.text.encoder.embedder import Embedder
    from gfbgcn.text.train.finetune import train_finetune

    run = train_finetune(graph, corpus.texts, load_encoder(encoder, device=device), config,
                         device=device, log=log, progress=progress, on_epoch=on_epoch)
    tuned = run.encoder.identity
    embedder = Embedder(tuned, device=device, encoder=run.encoder, bundled=True)
    source = run.gcn.source
    source.embed = embedder
    head = run.head
    linear = LinearTextModel(
        ngrams=None, coef=head.weight.detach().cpu().double().numpy(),
        intercept=head.bias.detach().cpu().double().numpy(), label_names=graph.label_names,
        tokenizer_name=graph.tokenizer, C=0.0, kind="finetuned-head", encoder_scale=1.0,
        embed=embedder, encoder_identity=source.identity)
    result = TrainResult(
        config=run.config, test=run.test, val=run.val, best_epoch=run.best_epoch,
        epochs_run=run.epochs_run, seconds_per_epoch=run.seconds_per_epoch,
        train_seconds=run.train_seconds, peak_rss_mib=run.peak_rss_mib, history=run.history,
        model=run.gcn, probabilities=run.probabilities, device=run.device)
    return result, linear, run.weight


def with_encoder(result: BaselineResult, embeddings: CorpusEmbeddings) -> BaselineResult:
    """``result`` whose linear model embeds new texts with the corpus's encoder, and records
    it (a saved model keeps the record)."""
    result.model.embed = embeddings.embed
    result.model.encoder_identity = embeddings.identity
    return result


def multi_label_targets(corpus: Corpus, label_sep: str, names: list[str] | None = None,
                        warn: bool = True) -> tuple[np.ndarray, list[str]]:
    """``(Y [D, L] 0/1, label names)``: each document's label field split on ``label_sep``
    (``warn``: a warning when no field contains it); ``names``: the labels in column order
    (default: those of the fields, sorted), a label no field holds included."""
    if warn:
        warn_if_no_separator(corpus.labels, label_sep)
    return multi_hot(split_labels(corpus.labels, label_sep), names)


def multi_label_predictor(result: TrainResult, graph: TextGraph, corpus: Corpus,
                          label_names: list[str], label_sep: str, tokenizer: Any,
                          prior: np.ndarray | None = None) -> InductiveTextGCN:
    """The inductive predictor of a multi-label run: sigmoid outputs, the threshold chosen on
    validation, and each label's frequency among the training documents (``prior``: as a
    weighted training saw it) as the prior of a document without known words."""
    if prior is None:
        y, _ = multi_hot(split_labels(corpus.labels, label_sep), label_names)
        prior = y[graph.is_train].mean(0).astype(np.float64)
    predictor = InductiveTextGCN.from_trained(
        result.model, graph, result.config.model, tokenizer=tokenizer, multi_label=True,
        threshold=result.threshold or 0.5, prior=prior)
    predictor.label_names = list(label_names)
    return predictor


def fit_baseline(corpus: Corpus, graph: TextGraph, config: TrainConfig,
                 class_weight: ClassWeight = None,
                 multi_label: tuple[np.ndarray, list[str]] | None = None,
                 embeddings: CorpusEmbeddings | None = None,
                 sample_weight: np.ndarray | None = None) -> BaselineResult:
    """The linear n-gram baseline on the run's own train/validation/test split
    (:func:`gfbgcn.text.linear.baseline.baseline_for_graph`; ``class_weight``: the
    classifier's linear class weighting, ``baseline_class_weight`` or else ``class_weight``;
    ``sample_weight`` ``[num_docs]``: each document's weight; ``multi_label``: a multi-label
    run's ``(targets
    [D, L], label names)``, one linear model per label,
    :func:`gfbgcn.text.linear.multilabel.multilabel_baseline_for_graph`), after
    training's freed memory has gone back to the system (its peak then adds to what training
    holds only).  With ``embeddings`` (single-label), the baseline with the encoder's
    embeddings beside its n-grams (:func:`gfbgcn.text.linear.encoder.fit_ngram_encoder`)."""
    release_free_memory()
    if multi_label is not None:
        assert not isinstance(class_weight, dict)  # refused for multi-label (settings)
        result = multilabel_baseline_for_graph(corpus, graph, *multi_label, config.val_ratio,
                                               config.seed, class_weight=class_weight,
                                               sample_weight=sample_weight)
    else:
        result = baseline_for_graph(corpus, graph, config.val_ratio, config.seed,
                                    class_weight=class_weight,
                                    keep_features=embeddings is not None,
                                    sample_weight=sample_weight)
        if embeddings is not None:
            split = graph_split(graph, config.val_ratio, config.seed)
            result = with_encoder(fit_ngram_encoder(
                result, embeddings.embeddings, graph.labels, split["train"], split["val"],
                split["test"], config.seed, class_weight=class_weight,
                sample_weight=sample_weight), embeddings)
    release_free_memory()
    return result


def shared_graph(build: Callable[[], TextGraph]) -> TextGraph:
    """``build()``; under torchrun (inside :func:`~gfbgcn.text.train.distributed.
    torchrun_group`) rank 0 builds (and caches) the graph before the others read it."""
    return rank_zero_first(build)

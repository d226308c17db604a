"""What :class:`~gfbgcn.TextGCNClassifier` does around training: the batching of
``batch_size="auto"``, the targets and predictor of a multi-label run, and the linear baseline
fitted beside the graph model (``baseline_``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np
import torch

from gfbgcn.core.memory import release_free_memory
from gfbgcn.text.corpus.corpus import Corpus
from gfbgcn.text.corpus.labels import multi_hot, split_labels, warn_if_no_separator
from gfbgcn.text.graph.text_graph import TextGraph
from gfbgcn.text.linear.baseline import BaselineResult, baseline_for_graph
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
from gfbgcn.text.train.features import DocInput
from gfbgcn.text.train.ngram_features import ngram_input


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


def doc_input_for(config: TrainConfig, corpus: Corpus, graph: TextGraph) -> DocInput | None:
    """The documents' input rows ``features="ngram"`` trains on (None for the other kinds)."""
    return ngram_input(corpus.texts, graph) if config.features == "ngram" else None


def multi_label_targets(corpus: Corpus, label_sep: str) -> tuple[np.ndarray, list[str]]:
    """``(Y [D, L] 0/1, label names)``: each document's label field split on ``label_sep``
    (a warning when no field contains it)."""
    warn_if_no_separator(corpus.labels, label_sep)
    return multi_hot(split_labels(corpus.labels, label_sep))


def multi_label_predictor(result: TrainResult, graph: TextGraph, corpus: Corpus,
                          label_names: list[str], label_sep: str, tokenizer: Any
                          ) -> InductiveTextGCN:
    """The inductive predictor of a multi-label run: sigmoid outputs, the threshold chosen on
    validation, and each label's frequency among the training documents as the prior of a
    document without known words."""
    y, _ = multi_hot(split_labels(corpus.labels, label_sep), label_names)
    prior = y[graph.is_train].mean(0).astype(np.float64)
    predictor = InductiveTextGCN.from_trained(
        result.model, graph, result.config.model, tokenizer=tokenizer, multi_label=True,
        threshold=result.threshold or 0.5, prior=prior)
    predictor.label_names = list(label_names)
    return predictor


def fit_baseline(corpus: Corpus, graph: TextGraph, config: TrainConfig,
                 class_weight: str | None = None,
                 multi_label: tuple[np.ndarray, list[str]] | None = None) -> BaselineResult:
    """The linear n-gram baseline on the run's own train/validation/test split
    (:func:`gfbgcn.text.linear.baseline.baseline_for_graph`; ``class_weight``: the
    classifier's ``baseline_class_weight``; ``multi_label``: a multi-label run's ``(targets
    [D, L], label names)``, one linear model per label,
    :func:`gfbgcn.text.linear.multilabel.multilabel_baseline_for_graph`), after
    training's freed memory has gone back to the system (its peak then adds to what training
    holds only)."""
    release_free_memory()
    if multi_label is not None:
        result = multilabel_baseline_for_graph(corpus, graph, *multi_label, config.val_ratio,
                                               config.seed, class_weight=class_weight)
    else:
        result = baseline_for_graph(corpus, graph, config.val_ratio, config.seed,
                                    class_weight=class_weight)
    release_free_memory()
    return result


def shared_graph(build: Callable[[], TextGraph]) -> TextGraph:
    """``build()``; under torchrun (inside :func:`~gfbgcn.text.train.distributed.
    torchrun_group`) rank 0 builds (and caches) the graph before the others read it."""
    return rank_zero_first(build)

"""Fixtures of the text tests: one thread, and a small model trained on the toy corpus."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import torch

from gfbgcn.text.graph.text_graph import GraphConfig, build_text_graph
from gfbgcn.text.predict.inductive import InductiveTextGCN
from gfbgcn.text.tokenize.preprocess import whitespace_tokenize
from gfbgcn.text.predict.saved import save_model
from gfbgcn.text.train.full_batch import TrainConfig, train_text

from tests.text.toydata import toy_corpus


@pytest.fixture(scope="module", autouse=True)
def _one_thread() -> Iterator[None]:
    """Small graphs on a shared 2-core machine: one torch thread is faster."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="module")
def trained():
    """``(graph, TrainResult)`` of GFB-MaxVec trained for 5 epochs on the toy corpus."""
    corpus = toy_corpus()
    graph = build_text_graph(corpus, GraphConfig(window=3, min_freq=1, stop_words=None),
                             whitespace_tokenize, cache=False)
    result = train_text(graph, TrainConfig(model="gfb-max", epochs=5, hidden=16, seed=0,
                                           layer_options={"exact": True}), progress=False)
    return graph, result


@pytest.fixture()
def model_dir(trained, tmp_path):
    """``(saved model directory, the in-memory predictor it was saved from)``."""
    graph, result = trained
    pred = InductiveTextGCN.from_trained(result.model, graph, result.config.model)
    return save_model(tmp_path / "model", pred, layer_options=result.config.layer_options,
                      data_hash={"graph_key": graph.key}), pred

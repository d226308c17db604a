"""Fixtures of the verbs' tests: the text fixtures (a small trained model, one thread), the
robustness suite's ``cli`` runner and model saved by ``gfbgcn train``, AIFB loaded once
(``reproduce entity``), and the toy ``r8`` of the reproduce verbs."""

import pytest

from gfbgcn.reproduce.text import grid as text_grid
from gfbgcn.text.graph.text_graph import GraphConfig, build_text_graph
from gfbgcn.text.tokenize.clean import whitespace_tokenize
from tests.entity.conftest import aifb  # noqa: F401
from tests.robustness.conftest import (  # noqa: F401 (evaluate, predict)
    cli,
    saved_model,
    saved_multi_label_model,
)
from tests.text.conftest import _one_thread, model_dir, trained  # noqa: F401
from tests.text.toydata import toy_corpus


@pytest.fixture()
def toy_benchmark(monkeypatch):
    """``r8`` replaced by the toy corpus and a graph without stop-word or rare-word removal
    (``reproduce text`` and ``reproduce inductive`` on it)."""
    monkeypatch.setattr(text_grid, "load_benchmark", lambda name, data_dir=None: toy_corpus())
    monkeypatch.setattr(text_grid, "build_text_graph", lambda corpus: build_text_graph(
        corpus, GraphConfig(window=3, min_freq=1, stop_words=None), whitespace_tokenize,
        cache=False))

"""The paper's reported numbers are read from their own files and labelled as the paper's."""

from __future__ import annotations

import pytest

from gfbgcn.reproduce.paper import TABLES, paper_table


def test_every_table_loads() -> None:
    assert set(TABLES) == {"text", "entity", "graphs"}
    for name in TABLES:
        assert isinstance(paper_table(name), dict) and paper_table(name)
    assert paper_table("text") is paper_table("text")  # read once


def test_graph_paper_numbers_are_labelled() -> None:
    paper = paper_table("graphs")
    assert "PAPER" in paper["_source"]
    assert paper["results"]["gfb-gcn"]["MUTAG"] == [83.5, 4.7]
    assert set(paper["results"]) == {"gcn", "sage", "gfb-gcn", "gfb-sage"}


def test_entity_and_text_numbers() -> None:
    entity = paper_table("entity")
    assert entity["models"]["gfb-rgcn"]["aifb"] == 97.22
    assert entity["models"]["rgcn"]["label"] == "R-GCN"
    text = paper_table("text")
    assert {"accuracy", "macro", "seconds_per_epoch_gpu"} <= set(text)
    assert set(text["accuracy"]["gfb-max"]) >= {"r8", "r52", "ohsumed", "20ng"}


def test_unknown_table_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown paper table"):
        paper_table("nodes")

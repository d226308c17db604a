"""``--report-only`` means the same in every ``reproduce`` verb: the report is re-rendered from
the records in ``--out``; no grid runs, no data set is downloaded, no command is logged."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from gfbgcn.cli import main, reproduce_entity, reproduce_graphs
from gfbgcn.entity import experiment as entity_experiment
from gfbgcn.text.auto import experiment as own_experiment
from gfbgcn.text.reproduce import text_grid
from tests.entity.conftest import toy_entities


def _never(*_, **__):
    pytest.fail("--report-only ran a grid")


@pytest.fixture()
def no_grid(monkeypatch):
    """Every way a verb could start training fails the test."""
    for module, name in ((text_grid, "run_text_grid"), (text_grid, "run_inductive_grid"),
                         (text_grid, "load_benchmark"), (own_experiment, "run_own_grid"),
                         (own_experiment, "load_own_dataset"),
                         (entity_experiment, "run_pending"),
                         (reproduce_graphs, "run_graph_grid"),
                         (reproduce_graphs, "load_graph_dataset")):
        monkeypatch.setattr(module, name, _never)


VERBS = [["text"], ["inductive"], ["own-corpora"], ["graphs"]]


@pytest.mark.parametrize("verb", VERBS, ids=" ".join)
def test_report_only_runs_and_logs_nothing(verb, tmp_path: Path, no_grid, capsys) -> None:
    out = tmp_path / "results"
    assert main(["reproduce", *verb, "--report-only", "--out", str(out)]) == 0
    assert "wrote" in capsys.readouterr().out
    assert not list(out.glob("raw/*/invocations.json"))  # nothing logged, nothing recorded


def test_entity_report_only_reads_data_without_downloading(tmp_path: Path, no_grid,
                                                           monkeypatch) -> None:
    calls = []

    def load(name, data_dir=None, *, allow_download=True):
        calls.append(allow_download)
        return dataclasses.replace(toy_entities(), name=name)

    monkeypatch.setattr(reproduce_entity, "load_entities", load)
    out = tmp_path / "results"
    assert main(["reproduce", "entity", "--datasets", "aifb", "--report-only", "--out",
                 str(out)]) == 0
    assert calls == [False]  # the data table's statistics; never a download
    assert "| AIFB |" in (out / "entity.md").read_text(encoding="utf-8")
    assert not (out / "raw" / "entity" / "invocations.json").exists()

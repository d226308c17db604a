"""``--report-only`` means the same in every ``reproduce`` verb: the report is re-rendered from
the records in ``--out``; no grid runs, no data set is downloaded, no command is logged.  An
``--out`` without records is refused (a report of nothing would replace the one there)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from gfbgcn.cli import main
from gfbgcn.graph_classification import data as graph_data
from gfbgcn.reproduce.entity import experiment as entity_experiment
from gfbgcn.reproduce.entity import reproduction as entity_reproduction
from gfbgcn.reproduce.graphs import experiment as graph_experiment
from gfbgcn.reproduce.graphs import report as graph_report
from gfbgcn.reproduce.own_corpora import experiment as own_experiment
from gfbgcn.reproduce.own_corpora import report as own_report
from gfbgcn.reproduce.text import grid as text_grid
from gfbgcn.reproduce.text import inductive_report
from gfbgcn.reproduce.text import report as text_report
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
                         (graph_experiment, "run_graph_grid"),
                         (graph_data, "load_graph_dataset")):
        monkeypatch.setattr(module, name, _never)


VERBS = [["text"], ["inductive"], ["own-corpora"], ["graphs"]]
#: Each verb's report renderer (stubbed: the renderers have their own tests) and task name.
RENDERERS = {"text": (text_report, "render_text_report"),
             "inductive": (inductive_report, "render_inductive_report"),
             "own-corpora": (own_report, "render_own_report"),
             "graphs": (graph_report, "write_report")}


@pytest.fixture()
def renders(monkeypatch) -> list[str]:
    """The verbs whose report was rendered (by a stub writing ``<out>/<task>.md``)."""
    calls: list[str] = []
    for task, (module, name) in RENDERERS.items():
        def render(layout, *_, task=task) -> None:
            calls.append(task)
            layout.report.write_text("rendered", encoding="utf-8")
        monkeypatch.setattr(module, name, render)
    return calls


def _with_record(out: Path, task: str) -> Path:
    raw = out / "raw" / task
    raw.mkdir(parents=True)
    record = '{"key": {"dataset": "r8"}, "device": "cpu"}'
    (raw / "dataset=r8__model=gcn__seed=0.json").write_text(record)
    return out


@pytest.mark.parametrize("verb", VERBS, ids=" ".join)
def test_report_only_runs_and_logs_nothing(verb, tmp_path: Path, no_grid, renders,
                                           capsys) -> None:
    out = _with_record(tmp_path / "results", verb[0])
    assert main(["reproduce", *verb, "--report-only", "--out", str(out)]) == 0
    assert "wrote" in capsys.readouterr().out and renders == [verb[0]]
    assert not list(out.glob("raw/*/invocations.json"))  # nothing logged, nothing recorded


@pytest.mark.parametrize("verb", [*VERBS, ["entity"]], ids=" ".join)
def test_report_only_without_records_is_refused(verb, tmp_path: Path, no_grid, renders,
                                                capsys) -> None:
    out = tmp_path / "results"
    out.mkdir()
    report = out / f"{verb[0]}.md"
    report.write_text("the report of last week's runs")
    assert main(["reproduce", *verb, "--report-only", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("error:") == 1 and "no run records" in err
    assert report.read_text() == "the report of last week's runs" and renders == []
    assert sorted(p.name for p in out.iterdir()) == [report.name]  # nothing else written


def test_entity_report_only_reads_data_without_downloading(tmp_path: Path, no_grid,
                                                           monkeypatch) -> None:
    calls = []

    def load(name, data_dir=None, *, allow_download=True):
        calls.append(allow_download)
        return dataclasses.replace(toy_entities(), name=name)

    monkeypatch.setattr(entity_reproduction, "load_entities", load)
    out = _with_record(tmp_path / "results", "entity")
    assert main(["reproduce", "entity", "--datasets", "aifb", "--report-only", "--out",
                 str(out)]) == 0
    assert calls == [False]  # the data table's statistics; never a download
    assert "| AIFB |" in (out / "entity.md").read_text(encoding="utf-8")
    assert not (out / "raw" / "entity" / "invocations.json").exists()

"""The entity reproduction as a whole: a data set's selection and test runs, the report rebuilt
from the records alone (never downloading), an unavailable data set reported as such, and
``select_seeds=0`` testing the R-GCN paper's settings."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from gfbgcn.core.errors import DatasetUnavailableError
from gfbgcn.reproduce.entity import reproduction
from gfbgcn.reproduce.entity.experiment import base_config
from gfbgcn.reproduce.entity.reproduction import (
    EntityReproduction,
    EntitySettings,
    dataset_stats,
)
from gfbgcn.reproduce.harness import Layout
from tests.entity.conftest import toy_entities


def _aifb():
    """The toy graph under AIFB's name (its settings), ten training nodes of two classes."""
    data = toy_entities(20)
    return replace(data, name="aifb", train_idx=data.train_idx.new_tensor(list(range(10))),
                   train_y=data.train_y.new_tensor([0, 1] * 5))


@pytest.fixture()
def loads(monkeypatch) -> list[tuple[str, bool]]:
    """Every load: (name, download allowed); only ``aifb`` is here, BGS is not."""
    calls: list[tuple[str, bool]] = []

    def load(name, data_dir=None, *, allow_download=True):
        calls.append((name, allow_download))
        if name != "aifb":
            raise DatasetUnavailableError(f"{name}: not in /data/{name}", f"not in {name}/")
        return _aifb()

    monkeypatch.setattr(reproduction, "load_entities", load)
    return calls


def _names(raw: Path, phase: str) -> list[str]:
    return sorted(p.name for p in raw.glob(f"phase={phase}__*.json"))


def test_runs_then_reports_from_the_records_alone(tmp_path, loads) -> None:
    layout = Layout(tmp_path, "entity")
    settings = EntitySettings(models=("rgcn", "gfb-rgcn"), seeds=2, epochs=1, select_seeds=1,
                              lambda_inits=(0.0,))
    EntityReproduction(layout, settings).run("aifb")
    # AIFB's candidates: 2 basis counts x 2 weight decays (x 1 lambda_0), one run each
    assert len(_names(layout.raw, "select")) == 8 and len(_names(layout.raw, "test")) == 4
    assert loads == [("aifb", True)]
    loads.clear()
    outcomes = EntityReproduction(layout, settings).write_report(["aifb", "bgs"], "gfbgcn x")
    assert loads == [("aifb", False), ("bgs", False)]  # a report never downloads
    aifb, bgs = outcomes
    assert set(aifb.models) == {"rgcn", "gfb-rgcn"} and aifb.unavailable is None
    assert aifb.models["rgcn"]["test"]["runs"] == 2
    assert sum(s["chosen"] for s in aifb.models["gfb-rgcn"]["selection"]) == 1
    assert bgs.unavailable == "not in bgs/" and not bgs.models  # the portable message
    report = layout.report.read_text(encoding="utf-8")
    assert "| AIFB |" in report and "gfbgcn x" in report and "/data/" not in report


def test_offline_never_downloads_and_unavailable_data_raises(tmp_path, loads) -> None:
    settings = EntitySettings(models=("rgcn",), seeds=1, epochs=1, select_seeds=0)
    entity = EntityReproduction(Layout(tmp_path, "entity"), settings, offline=True)
    with pytest.raises(DatasetUnavailableError):
        entity.run("bgs")
    entity.run("aifb")
    entity.run("aifb")  # loaded once; resumed: nothing re-run
    assert loads == [("bgs", False), ("aifb", False)]


def test_no_selection_tests_the_papers_settings(tmp_path, loads) -> None:
    layout = Layout(tmp_path, "entity")
    settings = EntitySettings(models=("gfb-rgcn",), seeds=1, epochs=2, summarize="max",
                              select_seeds=0)
    entity = EntityReproduction(layout, settings)
    entity.run("aifb")
    assert _names(layout.raw, "select") == [] and len(_names(layout.raw, "test")) == 1
    chosen, selection = entity.chosen_config(_aifb(), "gfb-rgcn", run=False)
    assert selection == []
    assert chosen == base_config("aifb", "gfb-rgcn", epochs=2, summarize="max")
    (record,) = [r for r in layout.store().records()]
    assert record["epochs_run"] == 2  # the exact epochs: no early stopping


def test_dataset_stats() -> None:
    stats, majority = dataset_stats(_aifb())
    assert (stats["num_nodes"], stats["num_relations"], stats["train"], stats["test"]) == (
        20, 2, 10, 1)
    # classes 0 and 1 tie on the training labels: argmax picks 0, the test node's class
    assert majority == 100.0 and "note" not in stats

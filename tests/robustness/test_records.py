"""E. Run records are checked field by field before a report reads them: a record with a
missing or mistyped field, or a record of another task, is left out with a warning naming the
file and the field; a NaN accuracy never enters a mean (the rest of its cell is shown)."""

from __future__ import annotations

import json
import math

import pytest

from gfbgcn.reproduce.store import RunStore
from tests.reproduce.text.test_report import _record as text_record


def _report_only(cli, out):
    return cli("reproduce", "text", "--out", out, "--report-only", "--datasets", "r8",
               "--models", "gcn", "gfb-max")


@pytest.fixture()
def results(tmp_path):
    """Results with two good gcn seeds on R8 (0.96, 0.98) and the store they live in."""
    out = tmp_path / "results"
    store = RunStore(out / "raw" / "text")
    for seed, acc in ((0, 0.96), (1, 0.98)):
        record, key = text_record("gcn", seed, acc)
        store.save(key, record)
    return out, store


def _gcn_cell(report: str) -> str:
    (row,) = [line for line in report.splitlines() if line.startswith("| Text GCN")
              or line.startswith("| gcn")][:1]
    return row


def _edit(store: RunStore, seed: int, change) -> object:
    record, key = text_record("gcn", seed, 0.5)
    path = store.save(key, record)
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(("change", "field", "problem"), [
    (lambda r: r["test"].pop("accuracy"), "test.accuracy", "missing"),
    (lambda r: r["test"].update(accuracy="0.9"), "test.accuracy", "expected a finite number"),
    (lambda r: r["key"].update(seed="two"), "key.seed", "expected a whole number"),
    (lambda r: r.update(epochs_run=None), "epochs_run", "expected a whole number"),
    (lambda r: r.update(device=["cpu"]), "device", "expected a string"),
    (lambda r: r.update(val=[0.5]), "val.accuracy", "missing"),
    (lambda r: r["test"].update(macro_f1=1.5), "test.macro_f1", "expected a number in [0, 1]"),
])
def test_a_malformed_record_is_left_out_with_a_warning(cli, results, change, field, problem):
    out, store = results
    bad = _edit(store, 2, change)
    result = _report_only(cli, out)
    assert result.status == 0, result.err
    assert f"warning: ignoring run record {bad}: {field}: {problem}" in result.err
    assert "0.9700 ± 0.0141 (2)" in _gcn_cell((out / "text.md").read_text())


def test_a_record_of_another_task_is_left_out(cli, results):
    out, store = results
    graphs = RunStore(out / "raw" / "text").save(  # a graph-classification record copied here
        {"dataset": "MUTAG", "model": "gfb-max", "hidden": 32, "layers": 2, "fold": 0},
        {"test_acc": 0.8, "val_acc": 0.7, "device": "cpu"})
    result = _report_only(cli, out)
    assert result.status == 0, result.err
    assert f"warning: ignoring run record {graphs}: key.dataset: expected one of" in result.err
    assert (out / "text.md").is_file()


def test_a_nan_accuracy_never_blanks_its_cell(cli, results):
    out, store = results
    bad = _edit(store, 2, lambda r: r["test"].update(accuracy=math.nan))
    assert "NaN" in bad.read_text()  # json writes the float as NaN, which Python reads back
    result = _report_only(cli, out)
    assert result.status == 0, result.err
    assert f"ignoring run record {bad}: test.accuracy: expected a finite number" in result.err
    cell = _gcn_cell((out / "text.md").read_text())
    assert "0.9700 ± 0.0141 (2)" in cell and "nan" not in cell.lower()


def test_graph_and_inductive_reports_leave_out_bad_records(cli, tmp_path):
    """The same checks in the other reports: a record with a NaN accuracy or a mistyped
    field is named in a warning and left out; the report is written from the rest."""
    from gfbgcn.reproduce.graphs.report import RECORD_SCHEMA as GRAPHS
    from gfbgcn.reproduce.harness import Layout
    from gfbgcn.reproduce.text.inductive_report import render_inductive_report

    store = RunStore(tmp_path / "graphs")
    good = {"num_folds": 10, "val_acc": 0.8, "val_loss": 0.4, "test_acc": 0.7, "best_epoch": 5,
            "seconds": 1.0, "device": "cpu", "lambda": [0.5],
            "train_config": {"epochs": 50, "patience": 10, "batch_size": 32, "lr": 0.01}}
    key = {"dataset": "MUTAG", "model": "gfb-gcn", "hidden": 32, "layers": 2, "fold": 0}
    store.save(key, good)
    bad = store.save({**key, "fold": 1}, {**good, "test_acc": math.nan})
    with pytest.warns(UserWarning, match=f"ignoring run record {bad}: test_acc: expected a "
                      "finite number"):
        assert len(list(store.records(GRAPHS))) == 1

    layout = Layout(tmp_path / "results", "inductive")
    record = {"dataset": "r8", "model": "gcn", "seed": 0, "device": "cpu",
              "transductive_accuracy": 0.9, "inductive_zero_accuracy": 0.85,
              "inductive_mean_accuracy": 0.86, "transductive_best_epoch": 30,
              "inductive_best_epoch": 31, "test_docs_without_known_word": 0,
              "machine": {"cpu_count": 2, "torch_threads": 1}, "versions": {"torch": "2"}}
    layout.store().save({"dataset": "r8", "model": "gcn", "seed": 0}, record)
    bad = layout.store().save({"dataset": "r8", "model": "gcn", "seed": 1},
                              {**record, "seed": "1"})
    with pytest.warns(UserWarning, match=f"ignoring run record {bad}: seed: expected a whole"):
        render_inductive_report(layout)
    assert "| r8 | gcn | 0 | 90.00 ± 0.00 |" in layout.report.read_text()


def test_the_fidelity_table_leaves_out_a_bad_record_of_the_main_table(tmp_path):
    from gfbgcn.reproduce.fidelity.experiment import Config
    from gfbgcn.reproduce.fidelity.report import existing_records

    store = RunStore(tmp_path / "raw" / "text")
    paths = []
    for seed in range(3):
        record, key = text_record("gcn", seed, 0.9)
        paths.append(store.save(key, {**record, "best_epoch": 20}))
    bad = _edit(store, 2, lambda r: r.update(best_epoch=20, val={"accuracy": math.nan}))
    assert bad == paths[2]
    config = Config("gcn", "the main table's cell", {"existing": {"dataset": "r8",
                                                                  "model": "gcn"}})
    with pytest.warns(UserWarning, match=f"ignoring run record {bad}: val.accuracy"):
        recs = existing_records(config, tmp_path)
    assert sorted(r["key"]["seed"] for r in recs) == [0, 1]


def test_the_entity_report_leaves_out_a_bad_record(tmp_path):
    from types import SimpleNamespace

    from gfbgcn.reproduce.entity import experiment

    store = RunStore(tmp_path / "raw" / "entity")
    cfg = experiment.base_config("aifb", "gfb-rgcn")
    good = {"metrics": {"test": {"accuracy": 0.9}}, "sec_per_epoch": 0.1, "peak_rss_mib": 100.0,
            "lambdas": [0.5], "num_parameters": 10}
    paths = [store.save(experiment.EntityRun("test", "aifb", cfg, seed).key(), good)
             for seed in range(2)]
    bad = store.save(experiment.EntityRun("test", "aifb", cfg, 2).key(),
                     {**good, "metrics": {"test": {"accuracy": math.nan}}})
    with pytest.warns(UserWarning, match=f"ignoring run record {bad}: metrics.test.accuracy"):
        records = experiment.test_runs(SimpleNamespace(name="aifb"), cfg, 3, store, run=False)
    assert len(records) == 2 and all(p.is_file() for p in paths)
    assert experiment.summarize_test(records)["acc_mean"] == pytest.approx(90.0)


def test_the_fidelity_report_leaves_out_a_bad_record_of_its_own(tmp_path):
    from gfbgcn.reproduce.fidelity.experiment import Config, Row
    from gfbgcn.reproduce.fidelity.report import render
    from gfbgcn.reproduce.harness import Layout

    layout = Layout(tmp_path / "results", "fidelity")
    row = Row("t", "text", "r8", "sgc", "toy", (Config("longer", "longer", {"model": "sgc"},
                                                       seeds=2),))
    good = {"val": {"accuracy": 0.9}, "test": {"accuracy": 0.8}, "best_epoch": 10}
    layout.store().save({"row": "t", "config": "longer", "seed": 0}, good)
    bad = layout.store().save({"row": "t", "config": "longer", "seed": 1},
                              {**good, "test": {"accuracy": "0.8"}})
    with pytest.warns(UserWarning, match=f"ignoring run record {bad}: test.accuracy"):
        report = render(layout, (row,))
    assert "longer" in report

"""The entity grid: candidate configs, validation-based selection (ties included), test runs and
their summary, resumable through the run store."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from gfbgcn.entity.model import EntityConfig
from gfbgcn.reproduce.entity import experiment
from gfbgcn.reproduce.entity.experiment import (
    EntityRun,
    base_config,
    candidates,
    run_once,
    select,
    summarize_test,
)
from gfbgcn.reproduce.store import RunStore
from tests.entity.conftest import toy_entities


def test_base_config_and_candidates() -> None:
    assert base_config("mutag", "rgcn") == EntityConfig(model="rgcn", hidden=16, num_bases=30,
                                                        weight_decay=5e-4)
    assert base_config("am", "gfb-rgcn", epochs=3).hidden == 10
    rgcn = candidates("aifb", "rgcn", epochs=7)
    assert [(c.num_bases, c.weight_decay) for c in rgcn] == [
        (None, 0.0), (None, 5e-4), (30, 0.0), (30, 5e-4)]
    assert {c.epochs for c in rgcn} == {7} and {c.lambda_init for c in rgcn} == {1.0}
    gfb = candidates("bgs", "gfb-rgcn", lambda_inits=(0.0, 0.5, 1.0))
    assert len(gfb) == 2 * 2 * 3 and {c.num_bases for c in gfb} == {30, 40}
    assert len({c.tag for c in gfb}) == len(gfb)  # every candidate its own record name


def test_run_keys() -> None:
    cfg = EntityConfig(model="gfb-rgcn")
    assert EntityRun("select", "aifb", cfg, 2).key() == {
        "phase": "select", "dataset": "aifb", "model": "gfb-rgcn", "config": cfg.tag, "seed": 2}


def _store_selection(store: RunStore, cfg: EntityConfig, accs, losses) -> None:
    for seed, (acc, loss) in enumerate(zip(accs, losses)):
        store.save(EntityRun("select", "toy", cfg, seed).key(),
                   {"metrics": {"val": {"accuracy": acc, "loss": loss}}})


def test_select_reads_validation_records_and_breaks_ties(tmp_path) -> None:
    data = toy_entities()
    store = RunStore(tmp_path)
    a, b, c, d = (EntityConfig(hidden=h) for h in (4, 5, 6, 7))
    _store_selection(store, a, [0.5, 0.7], [0.2, 0.2])   # mean 0.6
    _store_selection(store, b, [0.7, 0.7], [0.5, 0.7])   # mean 0.7, loss 0.6
    _store_selection(store, c, [0.6, 0.8], [0.5, 0.5])   # mean 0.7, loss 0.5: wins the tie
    _store_selection(store, d, [0.9], [0.1])             # one run only: still compared
    chosen, summary = select(data, [a, b, c], 2, store, run=False)
    assert chosen == c
    rows = {row["tag"]: row for row in summary}
    assert rows[c.tag]["chosen"] and not rows[b.tag]["chosen"]
    assert rows[a.tag]["val_acc_mean"] == pytest.approx(0.6)
    assert rows[a.tag]["val_acc_std"] == pytest.approx(math.sqrt(0.02))  # sample std
    assert rows[b.tag]["val_loss_mean"] == pytest.approx(0.6) and rows[b.tag]["runs"] == 2
    # an exact tie on both: the earlier candidate
    e = replace(b, hidden=8)
    _store_selection(store, e, [0.7, 0.7], [0.5, 0.7])
    assert select(data, [e, b], 2, store, run=False)[0] == e
    assert select(data, [b, e], 2, store, run=False)[0] == b
    assert select(data, [d, a], 2, store, run=False)[0] == d
    # nothing stored: the first candidate, no summary
    assert select(data, [EntityConfig(hidden=9)], 2, store, run=False) == (
        EntityConfig(hidden=9), [])


def _toy_with_ten_training_nodes():
    data = toy_entities(20)
    return replace(data, train_idx=data.train_idx.new_tensor(list(range(10))),
                   train_y=data.train_y.new_tensor([0, 1] * 5))


def test_select_and_test_runs_train_and_resume(tmp_path) -> None:
    data = _toy_with_ten_training_nodes()
    store = RunStore(tmp_path)
    configs = [EntityConfig(hidden=3, epochs=2), EntityConfig(hidden=4, epochs=2)]
    chosen, summary = select(data, configs, 2, store)
    assert chosen in configs and len(summary) == 2
    record = store.load(EntityRun("select", "toy", configs[0], 1).key())
    assert record["split"]["split_seed"] == 1 and set(record["metrics"]) == {"val"}
    assert {"versions", "machine", "dataset_info"} <= set(record)
    stamps = {p: p.stat().st_mtime_ns for p in tmp_path.glob("*.json")}
    assert select(data, configs, 2, store)[0] == chosen  # resumes: nothing re-run
    assert stamps == {p: p.stat().st_mtime_ns for p in tmp_path.glob("*.json")}
    assert experiment.test_runs(data, chosen, 3, store, run=False) == []
    records = experiment.test_runs(data, chosen, 3, store)
    assert [r["seed"] for r in records] == [0, 1, 2]
    assert all(set(r["metrics"]) == {"test"} for r in records)
    assert experiment.test_runs(data, chosen, 2, store, run=False) == records[:2]


def test_run_once_holds_out_a_fifth_of_the_training_nodes() -> None:
    data = _toy_with_ten_training_nodes()
    record = run_once(data, EntityRun("select", "toy", EntityConfig(hidden=3, epochs=1), 0))
    assert record["split"] == {"fit_nodes": 8, "val_nodes": 2, "split_seed": 0, "fraction": 0.2}
    assert sum(map(sum, record["metrics"]["val"]["confusion_matrix"])) == 2


def test_summarize_test() -> None:
    records = [{"metrics": {"test": {"accuracy": acc}}, "sec_per_epoch": sec, "peak_rss_mib": rss,
                "lambdas": lams, "num_parameters": 99}
               for acc, sec, rss, lams in [(0.9, 1.0, 300.0, [1.0, 0.5]),
                                           (0.8, 3.0, 500.0, [0.0, 0.5])]]
    summary = summarize_test(records)
    assert summary["runs"] == 2 and summary["acc"] == pytest.approx([90.0, 80.0])
    assert summary["acc_mean"] == pytest.approx(85.0)
    assert summary["acc_std"] == pytest.approx(math.sqrt(50.0))  # sample std, in %
    assert (summary["sec_per_epoch"], summary["peak_rss_mib"]) == (2.0, 500.0)
    assert summary["lambdas_mean"] == [0.5, 0.5] and summary["num_parameters"] == 99
    rgcn = summarize_test([{**records[0], "lambdas": []}])
    assert rgcn["lambdas_mean"] == [] and rgcn["acc_std"] == 0.0

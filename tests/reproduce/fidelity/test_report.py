"""The fidelity report: choices on validation only (shuffling the test numbers of the records
changes no choice), the graph rules, rendering from records."""

from __future__ import annotations

import random

from gfbgcn.reproduce.fidelity.experiment import Config, Row
from gfbgcn.reproduce.fidelity.report import choose, graph_units, render, row_markdown, summaries
from gfbgcn.reproduce.harness import Layout
from gfbgcn.reproduce.store import RunStore

GRID = {"hidden": [16, 32], "layers": [1, 2]}


def _graph_row() -> Row:
    base = {"model": "gfb-gcn", **GRID}
    return Row("g", "graphs", "MUTAG", "gfb-gcn", "toy graph row", (
        Config("ref", "reference", {**base, "model": "gcn"}, seeds=2, reference=True),
        Config("a", "a", base, seeds=2),
        Config("b", "b", {**base, "select": "val-loss-mean"}, seeds=2),
        Config("c", "c", base, seeds=2),
    ), folds=3)


def _text_row() -> Row:
    return Row("t", "text", "r8", "bp", "toy text row", tuple(
        Config(name, name, {"model": "bp"}, seeds=4, reference=name == "ref")
        for name in ("ref", "a", "b", "c")))


def _records(row: Row, rng: random.Random) -> list[dict]:
    out = []
    for c in row.configs:
        for seed in range(c.seeds):
            if row.task == "text":
                out.append({"key": {"row": row.id, "config": c.name, "seed": seed},
                            "val": {"accuracy": rng.random()},
                            "test": {"accuracy": rng.random(), "macro_f1": 0.5},
                            "best_epoch": 10})
                continue
            for fold in range(row.folds):
                for h in GRID["hidden"]:
                    for n in GRID["layers"]:
                        out.append({"key": {"row": row.id, "config": c.name, "seed": seed,
                                            "fold": fold, "hidden": h, "layers": n},
                                    "val_acc": rng.choice([0.5, 0.6, 0.7]),
                                    "val_loss": rng.random(), "test_acc": rng.random(),
                                    "best_epoch": 5, "lambda": [1.0]})
    return out


def _shuffle_test(records: list[dict], rng: random.Random) -> list[dict]:
    """Every record keeps its validation numbers; the test numbers are permuted among them."""
    field = "test_acc" if "test_acc" in records[0] else "test"
    values = [r[field] for r in records]
    rng.shuffle(values)
    return [{**r, field: v} for r, v in zip(records, values)]


def test_choices_do_not_depend_on_the_test_numbers(tmp_path) -> None:
    for trial in range(20):
        rng = random.Random(trial)
        for row in (_graph_row(), _text_row()):
            records = _records(row, rng)
            first = summaries(row, records, tmp_path)
            shuffled = summaries(row, _shuffle_test(records, rng), tmp_path)
            assert choose(first).config.name == choose(shuffled).config.name
            # and the grid points chosen inside each configuration are the same too
            for s1, s2 in zip(first, shuffled):
                assert [u.val for u in s1.units] == [u.val for u in s2.units]
                assert [u.extra.get("point") for u in s1.units] == \
                    [u.extra.get("point") for u in s2.units]


def test_choose_skips_references_and_takes_the_best_validation_mean(tmp_path) -> None:
    row = _text_row()
    recs = []
    for name, val in (("ref", 0.99), ("a", 0.5), ("b", 0.7), ("c", 0.6)):
        recs += [{"key": {"row": "t", "config": name, "seed": s}, "val": {"accuracy": val},
                  "test": {"accuracy": 1.0 - val}, "best_epoch": 1} for s in range(4)]
    assert choose(summaries(row, recs, tmp_path)).config.name == "b"


def test_graph_rules() -> None:
    row = _graph_row()
    recs = []
    # fold 0: (16,1) best val acc; (32,2) best val loss on average over the folds
    for fold in range(3):
        for h in (16, 32):
            for n in (1, 2):
                best_acc = (h, n) == (16, 1) and fold == 0
                recs.append({"key": {"row": "g", "config": "a", "seed": 0, "fold": fold,
                                     "hidden": h, "layers": n},
                             "val_acc": 0.9 if best_acc else 0.5,
                             "val_loss": 0.1 if (h, n) == (32, 2) else 0.5,
                             "test_acc": 0.3, "best_epoch": 1})
    per_fold = graph_units(row.configs[1], recs)
    assert [u.extra["point"] for u in per_fold] == ["16x1", "32x2", "32x2"]
    kernel = graph_units(row.configs[2], recs)
    assert [u.extra["point"] for u in kernel] == ["32x2"] * 3
    # a fold missing a grid point does not count
    assert len(graph_units(row.configs[1], recs[:-1])) == 2


def test_render_from_records(tmp_path) -> None:
    layout = Layout(tmp_path, "fidelity")
    store = layout.store()
    row = _text_row()
    for r in _records(row, random.Random(0)):
        store.save(r["key"], {k: v for k, v in r.items() if k != "key"})
    text = render(layout, [row])
    assert "## toy text row" in text and "← chosen on validation" in text
    assert text.count("← chosen") == 1


def test_choose_never_takes_a_configuration_of_another_protocol(tmp_path) -> None:
    """Stopping on validation accuracy raises validation accuracy by construction: such a
    configuration is reported beside the others but never chosen on validation."""
    configs = (Config("ref", "ref", {"model": "gcn"}, seeds=2, reference=True),
               Config("a", "a", {"model": "bp"}, seeds=2),
               Config("stopacc", "s", {"model": "bp"}, seeds=2, candidate=False))
    row = Row("t", "text", "r8", "bp", "toy", configs)
    recs = [{"key": {"row": "t", "config": name, "seed": s}, "val": {"accuracy": val},
             "test": {"accuracy": 0.5}, "best_epoch": 1}
            for name, val in (("ref", 0.9), ("a", 0.6), ("stopacc", 0.8)) for s in range(2)]
    sums = summaries(row, recs, tmp_path)
    assert choose(sums).config.name == "a"
    table = "\n".join(row_markdown(row, sums))
    assert "`stopacc` (not a candidate: never chosen)" in table
    assert "**`a` ← chosen on validation**" in table


def test_an_entity_row_shows_the_paper_fraction_and_lambda_per_layer(tmp_path) -> None:
    configs = (Config("rgcn", "ref", {"model": "rgcn"}, seeds=2, reference=True),
               Config("a", "a", {"model": "gfb-rgcn"}, seeds=2))
    row = Row("e", "entity", "mutag", "gfb-rgcn", "toy entity row", configs)
    recs = [{"key": {"row": "e", "config": name, "seed": s}, "val": {"accuracy": 0.7},
             "test": {"accuracy": 0.7 + s / 100}, "best_epoch": 50,
             "lambda": [0.25 + s, -0.5] if name == "a" else None}
            for name in ("rgcn", "a") for s in range(2)]
    table = "\n".join(row_markdown(row, summaries(row, recs, tmp_path)))
    assert "paper: **0.7794 (no std given)**" in table  # 77.94 % in the paper's table
    assert "λ 0.75, -0.50" in table  # the mean λ of each layer


def test_a_traced_configuration_gets_a_test_oracle_line_paired_with_its_versus(tmp_path) -> None:
    """The oracle line takes each seed's epoch of highest test accuracy (a bound, never chosen)
    and pairs with the oracle line of the configuration's ``versus``."""
    traced = {"model": "gcn", "options": {"trace_test": True}}
    configs = (Config("ref", "ref", {"model": "gcn"}, seeds=2, reference=True),
               Config("g", "g", traced, seeds=2, reference=True),
               Config("f", "f", {**traced, "model": "gfb-max"}, seeds=2, versus="g"))
    row = Row("t", "text", "ohsumed", "gfb-max", "toy", configs)
    tests = {"ref": [[0.5], [0.5]], "g": [[0.6, 0.7, 0.65], [0.6, 0.6, 0.6]],
             "f": [[0.6, 0.65, 0.75], [0.9, 0.6, 0.6]]}
    recs = []
    for name, per_seed in tests.items():
        for seed, trace in enumerate(per_seed):
            recs.append({"key": {"row": "t", "config": name, "seed": seed},
                         "val": {"accuracy": 0.99}, "test": {"accuracy": trace[0]},
                         "best_epoch": 1, "test_acc_history": trace,
                         "val_acc_history": [0.1 * (i + 1) for i in range(len(trace))]})
    sums = summaries(row, recs, tmp_path)
    by_name = {s.config.name: s for s in sums}
    oracle = by_name["f@test-oracle"]
    assert [u.test for u in oracle.units] == [0.75, 0.9]
    assert [u.extra["best_epoch"] for u in oracle.units] == [3, 1]
    assert [u.val for u in oracle.units] == [0.30000000000000004, 0.1]  # val at that epoch
    assert "ref@test-oracle" not in by_name  # untraced: no oracle line
    assert choose(sums).config.name == "f"  # the oracle lines are never chosen
    table = "\n".join(row_markdown(row, sums))
    # f's oracle minus g's oracle per seed: 0.75 - 0.7 and 0.9 - 0.6, in points
    assert "+17.50 ± 17.68 vs `g@test-oracle` (2 up, 0 down of 2)" in table


def test_an_existing_configuration_is_finished_with_the_seeds_its_cell_holds(tmp_path) -> None:
    """A configuration standing for a main-table cell competes with however many seeds that
    cell has (here 3 of a declared 10); a fidelity run declared with 5 needs all 5."""
    store = RunStore(tmp_path / "raw" / "text")
    for seed in range(3):
        store.save({"dataset": "r8", "model": "sgc", "variant": "lr0.2", "seed": seed},
                   {"val": {"accuracy": 0.9}, "test": {"accuracy": 0.8}, "best_epoch": 200})
    row = Row("t", "text", "r8", "sgc", "toy", (
        Config("main", "main cell", {"model": "sgc", "existing": {
            "dataset": "r8", "model": "sgc", "variant": "lr0.2"}}, seeds=10, existing=True),
        Config("longer", "longer", {"model": "sgc"}, seeds=5),
    ))
    recs = [{"key": {"row": "t", "config": "longer", "seed": s}, "val": {"accuracy": 0.95},
             "test": {"accuracy": 0.7}, "best_epoch": 1000} for s in range(3)]
    sums = summaries(row, recs, tmp_path)
    assert [s.complete for s in sums] == [True, False]
    assert choose(sums).config.name == "main"  # the unfinished, better-validated one waits

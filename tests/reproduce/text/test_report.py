"""The text report: the validation-chosen variant, per-seed gains, and ``text.md`` rendered from
run records (synthetic ones: the numbers in the tables are known in advance)."""

from __future__ import annotations

import random

import pytest

from gfbgcn.reproduce.harness import Layout
from gfbgcn.reproduce.paper import paper_table
from gfbgcn.reproduce.text.report import (
    collect,
    main_variant,
    paired_gains,
    render_text_report,
)


def test_main_variant_is_chosen_on_validation_over_shared_seeds():
    def rec(seed, val_acc):
        return {"key": {"seed": seed}, "val": {"accuracy": val_acc}}

    cells = {
        ("ohsumed", "gfb-max", "default"): [rec(0, 0.70), rec(1, 0.70), rec(2, 0.60)],
        ("ohsumed", "gfb-max", "fast"): [rec(0, 0.72), rec(1, 0.71)],
    }
    # on the shared seeds 0-1 fast wins (0.715 > 0.70); over all seeds default's mean is 0.667
    assert main_variant(cells, "ohsumed", "gfb-max") == "fast"
    cells[("ohsumed", "gfb-max", "fast")] = [rec(0, 0.69), rec(1, 0.70)]
    assert main_variant(cells, "ohsumed", "gfb-max") == "default"
    # a model without candidates, and a cell with only the paper's setting
    assert main_variant(cells, "ohsumed", "gcn") == "default"
    assert main_variant({("r8", "gfb-max", "default"): [rec(0, 0.9)]},
                                       "r8", "gfb-max") == "default"


def test_issue_26_candidates_compete_only_where_they_ran():
    def rec(seed, val_acc):
        return {"key": {"seed": seed}, "val": {"accuracy": val_acc}}

    cells = {
        ("ohsumed", "gfb-max", "default"): [rec(0, 0.66), rec(1, 0.65)],
        ("ohsumed", "gfb-max", "fast"): [rec(0, 0.70), rec(1, 0.69)],
        ("ohsumed", "gfb-max", "fast-l2"): [rec(0, 0.71), rec(1, 0.72)],
        ("ohsumed", "bp", "default"): [rec(0, 0.80)],
        ("ohsumed", "bp", "patience50"): [rec(0, 0.96)],
        ("r8", "gfb-max", "default"): [rec(0, 0.97)],
        ("r8", "gfb-max", "fast"): [rec(0, 0.96)],
        # a variant outside a model's candidates is never shown in its main cell
        ("ohsumed", "gcn", "patience50"): [rec(0, 0.99)],
    }
    assert main_variant(cells, "ohsumed", "gfb-max") == "fast-l2"
    assert main_variant(cells, "ohsumed", "bp") == "patience50"
    assert main_variant(cells, "r8", "gfb-max") == "default"
    assert main_variant(cells, "ohsumed", "gcn") == "default"


def test_variant_choices_do_not_depend_on_the_test_numbers():
    """Permuting the test accuracies among the records (or dropping
    them) changes no choice of the main table."""
    rng = random.Random(0)
    models = {"gfb-max": ("default", "fast", "fast-l2"), "bp": ("default", "patience50"),
              "sgc": ("default", "lr0.2"), "gin": ("default", "eps-1", "eps-1-fixed")}
    for _trial in range(30):
        cells = {("ohsumed", m, v): [
            {"key": {"seed": s}, "val": {"accuracy": rng.random()},
             "test": {"accuracy": rng.random()}} for s in range(rng.randint(1, 4))]
            for m, variants in models.items() for v in variants}
        tests = [r["test"] for recs in cells.values() for r in recs]
        rng.shuffle(tests)
        it = iter(tests)
        shuffled = {c: [{**r, "test": next(it)} for r in recs] for c, recs in cells.items()}
        no_test = {c: [{k: v for k, v in r.items() if k != "test"} for r in recs]
                   for c, recs in cells.items()}
        for model in models:
            chosen = main_variant(cells, "ohsumed", model)
            assert main_variant(shuffled, "ohsumed", model) == chosen
            assert main_variant(no_test, "ohsumed", model) == chosen


def test_paired_gains_pair_runs_by_seed_and_use_the_main_variant():
    def rec(seed, test_acc, val_acc=0.5):
        return {"key": {"seed": seed}, "test": {"accuracy": test_acc},
                "val": {"accuracy": val_acc}}

    cells = {
        ("r8", "gcn", "default"): [rec(0, 0.90), rec(1, 0.80), rec(2, 0.85)],
        ("r8", "gfb-max", "default"): [rec(1, 0.81), rec(0, 0.95), rec(3, 0.99)],
    }
    # seeds 0 and 1 only (3 has no GCN run, 2 no GFB run), in seed order
    assert paired_gains(cells, "r8", "gfb-max") == pytest.approx([0.05, 0.01])
    # the fast form validates better, so it is the main variant and the one paired
    cells[("r8", "gfb-max", "fast")] = [rec(0, 0.70, val_acc=0.9)]
    assert paired_gains(cells, "r8", "gfb-max") == pytest.approx([-0.20])
    assert paired_gains(cells, "r52", "gfb-max") == []


def _record(model, seed, test_acc, val_acc=0.5, variant="default", dataset="r8", epochs=30):
    return {"test": {"accuracy": test_acc, "macro_precision": 0.5, "macro_recall": 0.4,
                     "macro_f1": 0.45},
            "val": {"accuracy": val_acc, "loss": 0.3}, "seconds_per_epoch": 0.25,
            "epochs_run": epochs, "device": "cpu"}, {"dataset": dataset, "model": model,
                                                     "variant": variant, "seed": seed}


def _table(text: str, heading: str) -> dict[str, str]:
    """The rows of the first table after ``heading``, by their first cell."""
    lines = text[text.index(heading):].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| "))
    rows = {}
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        rows[line.split(" | ")[0].lstrip("| ")] = line
    return rows


@pytest.fixture()
def layout(tmp_path):
    layout = Layout(tmp_path / "results", "text")
    store = layout.store()
    for seed, (gcn, gfb) in enumerate([(0.960, 0.970), (0.962, 0.969), (0.958, 0.972)]):
        rec, key = _record("gcn", seed, gcn)
        store.save(key, rec)
        rec, key = _record("gfb-max", seed, gfb, val_acc=0.90)
        store.save(key, rec)
    rec, key = _record("gfb-max", 0, 0.5, val_acc=0.95, variant="fast")  # better on validation
    store.save(key, rec)
    rec, key = _record("gcn", 0, 0.2, dataset="r52")  # far below the paper: flagged
    store.save(key, rec)
    return layout


def test_collect_groups_records_by_cell(layout):
    cells = collect(layout.store())
    assert sorted(cells) == [("r52", "gcn", "default"), ("r8", "gcn", "default"),
                             ("r8", "gfb-max", "default"), ("r8", "gfb-max", "fast")]
    assert [r["key"]["seed"] for r in cells[("r8", "gcn", "default")]] == [0, 1, 2]


def test_rendered_report_shows_our_cells_beside_the_paper(layout):
    layout.notes.write_text("Hand-written notes.\n", encoding="utf-8")
    render_text_report(layout, "gfbgcn reproduce text --datasets r8 r52 --models gcn gfb-max")
    text = layout.report.read_text(encoding="utf-8")
    paper = paper_table("text")["accuracy"]
    assert "Generated by `gfbgcn reproduce text --datasets r8 r52 --models gcn gfb-max`" in text
    rows = _table(text, "## Test accuracy")
    gcn = rows["Text GCN (WAP)"]
    ref = paper["gcn"]["r8"]
    assert "0.9600 ± 0.0020 (3)" in gcn and f"{ref[0]:.4f} ± {ref[1]:.4f}" in gcn
    assert "0.2000 (1) ⚠" in gcn  # R52: one seed, more than two sd from the paper
    # GFB-MaxVec: the fast form validated better (0.95 vs 0.90 on seed 0), so it is shown
    assert "0.5000 (1) ⚠ [fast]" in rows["GFB + MaxVec"]
    assert "## Gain over Text GCN, paired by seed" in text
    gains = _table(text, "## Gain over Text GCN, paired by seed")
    assert "-46.00 (0/1)" in gains["GFB + MaxVec"]  # fast on seed 0 (0.50) minus GCN (0.96)
    times = _table(text, "## Time per epoch")
    assert times["Text GCN (WAP)"].startswith("| Text GCN (WAP) | 0.250 | ")
    assert "| R8 | gfb-max | fast | 0.5000 (1) | 0.9500 (1) | 30.0 |" in text
    assert "Hand-written notes." in text
    assert str(layout.out) not in text  # no machine paths
    assert (layout.figures / "convergence.png").read_bytes()[:4] == b"\x89PNG"


def test_empty_store_renders_an_empty_report(tmp_path):
    layout = Layout(tmp_path, "text")
    render_text_report(layout, "gfbgcn reproduce text --report-only")
    assert "rendered from existing run records" in layout.report.read_text(encoding="utf-8")
    assert not (layout.figures / "convergence.png").exists()


def test_time_columns_name_the_device(layout):
    """CPU records give CPU columns; once a GPU record joins, every time cell names the
    device(s) of its own records."""
    render_text_report(layout, "gfbgcn reproduce text")
    text = layout.report.read_text(encoding="utf-8")
    assert "| R8 s/epoch ours (CPU) | paper (GTX1080) | epochs |" in text
    assert _table(text, "## Time per epoch")["Text GCN (WAP)"].startswith(
        "| Text GCN (WAP) | 0.250 | ")
    rec, key = _record("gcn", 7, 0.96)
    layout.store().save(key, {**rec, "seconds_per_epoch": 0.004,
                              "device": "cuda:0 (NVIDIA H100 80GB HBM3)"})
    render_text_report(layout, "gfbgcn reproduce text")
    text = layout.report.read_text(encoding="utf-8")
    assert "| R8 s/epoch ours (CPU + NVIDIA H100 80GB HBM3) |" in text
    times = _table(text, "## Time per epoch")
    # one median per device: a median over CPU and GPU epochs together would describe neither
    assert "| 0.250 (CPU) / 0.004 (NVIDIA H100 80GB HBM3) |" in times["Text GCN (WAP)"]
    assert "| 0.250 (CPU) |" in times["GFB + MaxVec"]

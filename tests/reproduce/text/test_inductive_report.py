"""The inductive report: per (dataset, model) summaries, per-run rows and resumable commands."""

from __future__ import annotations

from gfbgcn.core.runinfo import provenance
from gfbgcn.reproduce.harness import Layout
from gfbgcn.reproduce.text.inductive_report import (
    inductive_markdown,
    render_inductive_report,
)


def _record(dataset, model, seed, trans, zero, mean):
    return {"dataset": dataset, "model": model, "seed": seed, "transductive_accuracy": trans,
            "inductive_zero_accuracy": zero, "inductive_mean_accuracy": mean,
            "transductive_best_epoch": 20 + seed, "inductive_best_epoch": 18,
            "test_docs_without_known_word": 3, "device": "cpu", **provenance()}


RECORDS = [_record("r8", "gcn", 1, 0.97, 0.95, 0.96), _record("r8", "gcn", 0, 0.95, 0.93, 0.94),
           _record("r8", "gfb-max", 0, 0.98, 0.96, 0.97)]


def test_summary_rows_are_mean_and_sample_std_in_percent():
    text = inductive_markdown(RECORDS)
    # gcn: transductive 95, 97 -> 96.00 ± 1.41 (sample std sqrt(2))
    assert "| r8 | gcn | 0,1 | 96.00 ± 1.41 | 94.00 ± 1.41 | 95.00 ± 1.41 | 3 |" in text
    assert "| r8 | gfb-max | 0 | 98.00 ± 0.00 | 96.00 ± 0.00 | 97.00 ± 0.00 | 3 |" in text
    assert "| r8 | gcn | 1 | 97.00 | 95.00 | 96.00 | 21 / 18 |" in text  # per run
    assert "gfbgcn reproduce inductive --datasets r8 --models gcn gfb-max --seeds 2" in text


def test_render_writes_nothing_without_records_then_the_report(tmp_path):
    layout = Layout(tmp_path, "inductive")
    render_inductive_report(layout)
    assert not layout.report.exists()
    for rec in RECORDS:
        layout.store().save({"dataset": rec["dataset"], "model": rec["model"],
                             "seed": rec["seed"]}, rec)
    layout.notes.write_text("Notes here.\n", encoding="utf-8")
    render_inductive_report(layout)
    text = layout.report.read_text(encoding="utf-8")
    assert text.startswith("# Inductive prediction") and "Notes here." in text
    assert "| r8 | gfb-max | 0 |" in text

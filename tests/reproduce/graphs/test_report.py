"""The graph-classification report rendered from known records: cells marked with the folds
done and a reduced grid, unfinished folds not counted, users' own data sets, the paper beside."""

from __future__ import annotations

import re
from pathlib import Path

from gfbgcn.reproduce.graphs.report import PAPER_GRID_SIZE, _cell, render, write_report
from gfbgcn.reproduce.harness import Layout


def test_report_cell_marks_partial_folds_and_reduced_grids():
    assert PAPER_GRID_SIZE == 20
    assert _cell(70.0, 2.0, 10, 10) == "70.0 ± 2.0"
    assert _cell(70.0, 2.0, 7, 10) == "70.0 ± 2.0 (7/10 folds)"
    assert _cell(70.0, 2.0, 10, 10, configs=1) == "70.0 ± 2.0 (1 of 20 configs)"
    assert _cell(70.0, 2.0, 3, 10, configs=2) == "70.0 ± 2.0 (3/10 folds, 2 of 20 configs)"
    assert _cell(70.0, 2.0, 0, 10, configs=0) == "not run"


def _record(dataset, model, fold, hidden, layers, val_acc, test_acc, lam=()):
    return {"key": {"dataset": dataset, "model": model, "fold": fold, "hidden": hidden,
                    "layers": layers},
            "val_acc": val_acc, "val_loss": 1 - val_acc, "test_acc": test_acc,
            "num_folds": 10, "best_epoch": 4, "seconds": 2.0, "lambda": list(lam), "device": "cpu",
            "train_config": {"epochs": 2, "patience": 20, "batch_size": 64, "lr": 0.01},
            "data": {"source": f"tu/{dataset}/raw", "num_graphs": 5, "num_nodes": 9,
                     "num_directed_edges": 12, "features": "one-hot (3)"}}


RECORDS = [
    _record("MUTAG", "gfb-gcn", 0, 16, 1, 0.8, 0.70, [1.5]),
    _record("MUTAG", "gfb-gcn", 0, 16, 2, 0.9, 0.80, [0.5, 0.7]),  # fold 0: chosen (val 0.9)
    _record("MUTAG", "gfb-gcn", 1, 16, 1, 0.7, 0.90, [0.1]),       # fold 1: chosen
    _record("MUTAG", "gfb-gcn", 1, 16, 2, 0.6, 0.10, [0.2, 0.2]),
    _record("MUTAG", "gfb-gcn", 2, 16, 1, 0.9, 0.00),              # fold 2 unfinished
    _record("TOY", "sage", 0, 8, 1, 0.5, 0.5),
]


def _row(text: str, start: str) -> str:
    return next(line for line in text.splitlines() if line.startswith(start))


def test_render(tmp_path: Path) -> None:
    text = render(RECORDS, Layout(tmp_path, "graphs"))
    header = _row(text, "| model |")
    assert "| MUTAG ours | MUTAG paper |" in header and "| TOY ours | TOY paper |" in header
    # folds 0 and 1: 80 and 90 -> 85.0 ± 5.0 (population std); fold 2 is not counted
    gfb = _row(text, "| GFB-GCN |")
    assert gfb.startswith("| GFB-GCN | 85.0 ± 5.0 (2/10 folds, 2 of 20 configs) | 83.5 ± 4.7 |")
    sage = _row(text, "| GraphSAGE |")
    assert sage.endswith("| 50.0 ± 0.0 (1/10 folds, 1 of 20 configs) | – |")
    assert _row(text, "| GCN |").startswith("| GCN | not run | 74.6 ± 7.7 |")
    run = _row(text, "| MUTAG | GFB-GCN |")
    assert ("| hidden [16] × layers [1, 2] | 2/10 | 5 (1 in an unfinished fold, not counted) |"
            in run)
    assert "| 2 / 20 / 64 / 0.01 |" in run and "| 16x1: 1, 16x2: 1 |" in run
    assert run.endswith("| 0.30 |")  # mean lambda of the selected runs' first layer
    assert "| MUTAG | GCN | not run | 0 | 0 |" in text
    assert "- **TOY**: tu/TOY/raw; 5 graphs, 9 nodes, 12 directed edges; node features: " \
        "one-hot (3)." in text
    assert "(no command recorded)" in text


def test_write_report_reads_the_store_and_the_notes(tmp_path: Path) -> None:
    layout = Layout(tmp_path, "graphs")
    for rec in RECORDS:
        layout.store().save(rec["key"], {k: v for k, v in rec.items() if k != "key"})
    layout.notes.write_text("Notes by hand.\n", encoding="utf-8")
    write_report(layout)
    text = layout.report.read_text(encoding="utf-8")
    assert "85.0 ± 5.0 (2/10 folds, 2 of 20 configs)" in text and "Notes by hand." in text


def test_source_files_named_by_the_report_exist(tmp_path: Path) -> None:
    text = render(RECORDS, Layout(tmp_path, "graphs"))
    root = Path(__file__).resolve().parents[3]
    named = set(re.findall(r"`(src/gfbgcn/[\w/]+\.\w+)`", text))
    assert named and all((root / path).is_file() for path in named), named

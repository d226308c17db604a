"""The own-corpora report: its columns and the graph-settings table behind the defaults."""

from __future__ import annotations

from typing import Any

from gfbgcn.reproduce.own_corpora.report import own_markdown


def _candidate(stop: str, min_freq: int, val: float, test: float,
               model: str = "gfb-max", stopped_at: str = "") -> dict[str, Any]:
    return {"stop_words": stop, "min_freq": min_freq, "window": 20, "model": model,
            "stopped_at": stopped_at,
            "features": "onehot", "predictor": "graph", "val_accuracy": f"{val:.4f}",
            "test": {"accuracy": test, "macro_f1": test}}


def _record(dataset: str, seed: int, val_none: float, test_none: float,
            stopped_at: str = "") -> dict[str, Any]:
    m = {"accuracy": 0.9, "macro_f1": 0.8}
    return {
        "dataset": dataset, "seed": seed, "defaults": m, "auto": m,
        "baseline": {**m, "classifier": "svm C=1"},
        "combined": {**m, "weight": 0.5, "graph_part": m, "graph_part_model": "gfb-max"},
        "auto_choice": {"predictor": "linear", "linear": "svm C=1"},
        "features": None, "wall_seconds": 10.0,
        "candidates": [_candidate("english", 5, 0.80, 0.70),
                       _candidate("none", 2, val_none, test_none, stopped_at=stopped_at),
                       _candidate("none", 2, 0.99, 0.99, model="gcn")],  # not stage 1
    }


def test_settings_table_averages_stage_one_per_data_set() -> None:
    records = [_record("r8", 0, 0.90, 0.80, stopped_at="10"), _record("r8", 1, 0.94, 0.84),
               _record("r52", 0, 0.70, 0.60)]
    text = own_markdown(records)
    section = text[text.index("## Graph settings"):]
    rows = {line.split(" | ")[0]: line for line in section.splitlines()
            if line.startswith("| stop")}
    assert set(rows) == {"| stop english, min_freq 5", "| stop none, min_freq 2"}
    # r8's two seeds averaged first (92.00 / 82.00), then the data sets' means: (92 + 70) / 2
    assert "92.00 / 82.00 (1 stopped)" in rows["| stop none, min_freq 2"]
    assert "stopped" not in rows["| stop english, min_freq 5"]
    assert rows["| stop none, min_freq 2"].endswith("| 81.00 | 71.00 |")
    assert "the linear baseline (svm C=1) ×2" in text  # the choice, per data set


def test_no_candidates_no_settings_table() -> None:
    record = _record("r8", 0, 0.9, 0.8)
    del record["candidates"]
    assert "## Graph settings" not in own_markdown([record])

"""The entity report rendered from known outcomes: our cells beside the paper's, flags, data
sets that could not be run, the validation choices and every run."""

from __future__ import annotations

from gfbgcn.reproduce.entity.report import DatasetOutcome, render


def _outcomes() -> list[DatasetOutcome]:
    aifb = DatasetOutcome("aifb", stats={"num_nodes": 8285, "num_edges": 58086,
                                         "num_relations": 90, "num_classes": 4, "train": 140,
                                         "test": 36}, majority_acc=41.67)
    aifb.models["gfb-rgcn"] = {
        "tag": "h16-full-wd0-lr0.01-e50-mean-lam1", "config": {},
        "selection": [{"tag": "h16-full-wd0-lr0.01-e50-mean-lam1", "runs": 3,
                       "val_acc_mean": 0.9, "val_acc_std": 0.01, "val_loss_mean": 0.3,
                       "chosen": True},
                      {"tag": "h16-b30-wd0-lr0.01-e50-mean-lam1", "runs": 3,
                       "val_acc_mean": 0.8, "val_acc_std": 0.02, "val_loss_mean": 0.4,
                       "chosen": False}],
        "test": {"runs": 2, "acc": [94.44, 97.22], "acc_mean": 95.83, "acc_std": 0.5,
                 "sec_per_epoch": 0.123, "peak_rss_mib": 456.0, "lambdas_mean": [0.9, 1.1],
                 "num_parameters": 1234}}
    bgs = DatasetOutcome("bgs", unavailable="BGS data unavailable: expected raw files in "
                         "<data root>/entities/bgs/raw")
    return [aifb, bgs]


def test_rendered_tables() -> None:
    text = render(_outcomes(), ["rgcn", "gfb-rgcn"], "gfbgcn reproduce entity --seeds 2",
                  ["cpu"], "raw/entity", notes="Notes by hand.",
                  commands=["## Commands that produced these records", ""])
    lines = text.splitlines()
    # 95.83 ours vs 97.22 paper: -1.39 points, -2.8 of our std (0.5): flagged
    assert ("| AIFB | GFB-R-GCN | 95.83 ± 0.50 | 97.22 | -1.39 | -2.8 | 2 | "
            "`h16-full-wd0-lr0.01-e50-mean-lam1` | 0.123 | 456 |") in lines
    assert "| AIFB | R-GCN | not run: data unavailable offline | 95.83 | | | 0 | | | |" in lines
    assert "| BGS | GFB-R-GCN | not run: data unavailable offline | 89.66 | | | 0 | | | |" in lines
    assert "Rows more than 2 std away from the paper: aifb/gfb-rgcn (see below)." in lines
    assert "| AIFB | 8,285 | 58,086 | 90 | 4 | 140 | 36 | 41.67 | loaded |" in lines
    assert "- BGS: BGS data unavailable: expected raw files in <data root>/entities/bgs/raw" \
        in lines
    assert "| `h16-full-wd0-lr0.01-e50-mean-lam1` | 3 | 90.00 ± 1.00 | 0.3000 | **yes** |" in lines
    assert ("- AIFB / GFB-R-GCN: 94.44, 97.22 (1,234 parameters; learned λ per layer (mean "
            "over runs): 0.900, 1.100)") in lines
    assert "gfbgcn reproduce entity --seeds 2" in lines and "Notes by hand." in lines
    assert "## Commands that produced these records" in lines
    assert "- raw per-run records (seed, config, machine, versions, metrics): `raw/entity`" in lines


def test_no_flag_within_two_std() -> None:
    outcomes = _outcomes()
    outcomes[0].models["gfb-rgcn"]["test"]["acc_std"] = 1.0  # -1.39 is -1.4 std
    text = render(outcomes, ["gfb-rgcn"], "cmd", ["cpu"], "raw")
    assert "| -1.39 | -1.4 |" in text and "Rows more than 2 std" not in text

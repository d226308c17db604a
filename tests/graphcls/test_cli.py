"""``gfbgcn reproduce graphs`` end to end on a tiny MUTAG grid: report written, runs resumed."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from gfbgcn.graphcls import cli
from gfbgcn.graphcls.report import paper_results


def test_paper_numbers_are_labelled() -> None:
    paper = paper_results()
    assert "PAPER" in paper["_source"]
    assert paper["results"]["gfb-gcn"]["MUTAG"] == [83.5, 4.7]
    assert set(paper["results"]) == {"gcn", "sage", "gfb-gcn", "gfb-sage"}


@pytest.mark.realdata
def test_cli_runs_writes_report_and_resumes(data_dir: Path, tmp_path: Path) -> None:
    parser = argparse.ArgumentParser()
    cli.add_arguments(parser)
    argv = [
        "--data-dir", str(data_dir), "--datasets", "MUTAG", "--models", "sage", "gfb-sage",
        "--hidden", "16", "--layers", "1", "--fold-limit", "1", "--epochs", "2",
        "--out", str(tmp_path / "graphs.md"), "--raw-dir", str(tmp_path / "raw"),
    ]  # fmt: skip
    args = parser.parse_args(argv)
    assert args.folds == 10 and args.models == ["sage", "gfb-sage"]
    assert cli.run(args) == 0
    runs = sorted(p.name for p in (tmp_path / "raw").glob("dataset=*.json"))
    assert runs == [
        "dataset=MUTAG__model=gfb-sage__fold=0__hidden=16__layers=1.json",
        "dataset=MUTAG__model=sage__fold=0__hidden=16__layers=1.json",
    ]
    before = {p: p.stat().st_mtime_ns for p in (tmp_path / "raw").glob("dataset=*.json")}
    assert cli.run(parser.parse_args(argv)) == 0  # resumes: nothing re-run
    assert before == {p: p.stat().st_mtime_ns for p in before}
    md = (tmp_path / "graphs.md").read_text()
    assert "| GraphSAGE | " in md and "(1/10 folds, 1 of 20 configs)" in md and "74.9 ± 8.7" in md
    assert "| MUTAG | GCN | not run |" in md
    invocations = json.loads((tmp_path / "raw" / "invocations.json").read_text())
    assert len(invocations) == 2 and all(inv["finished"] for inv in invocations)
    record = json.loads(Path(sorted(before)[0]).read_text())
    assert record["train_config"]["epochs"] == 2 and record["epochs_run"] <= 2

"""``gfbgcn reproduce graphs`` end to end: the records of the requested grid, a resumed run that
makes none, and the report's row showing the folds done (MUTAG from the data root, and a TU
data set written by the test)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gfbgcn.cli import build_parser, main
from gfbgcn.reproduce.harness import Invocations, Layout
from tests.graph_classification.toydata import write_tu


def _records(raw: Path) -> dict[str, int]:
    return {p.name: p.stat().st_mtime_ns for p in raw.glob("*=*.json")}


def _row(text: str, start: str) -> str:
    return next(line for line in text.splitlines() if line.startswith(start))


def test_defaults_and_flags() -> None:
    args = build_parser(["reproduce", "graphs"]).parse_args(["reproduce", "graphs"])
    assert (args.folds, args.fold_limit, args.seed, args.epochs) == (10, None, 0, 100)
    assert (args.hiddens, args.layers) == ([16, 32, 64, 128], [1, 2, 3, 4, 5])
    assert (args.patience, args.graph_batch, args.lr) == (20, 64, 0.01)
    assert args.batch_runs == 1  # one run at a time unless asked
    assert args.models == ["gcn", "sage", "gfb-gcn", "gfb-sage"] and not hasattr(args, "seeds")


@pytest.mark.realdata
def test_cli_runs_writes_report_and_resumes(data_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "results"
    argv = ["reproduce", "graphs", "--data-dir", str(data_dir), "--datasets", "MUTAG",
            "--models", "sage", "gfb-sage", "--hiddens", "16", "--layers", "1", "2",
            "--fold-limit", "1", "--epochs", "2", "--out", str(out)]
    assert main(argv) == 0
    raw = out / "raw" / "graphs"
    expected = {f"dataset=MUTAG__model={m}__fold=0__hidden=16__layers={n}.json"
                for m in ("sage", "gfb-sage") for n in (1, 2)}
    assert set(_records(raw)) == expected  # one record per requested key, nothing else
    record = json.loads((raw / sorted(expected)[0]).read_text())
    assert record["train_config"]["epochs"] == 2 and record["epochs_run"] <= 2
    assert record["num_folds"] == 10 and record["key"]["fold"] == 0
    before = _records(raw)
    assert main(argv) == 0  # resumes: nothing re-run
    assert _records(raw) == before
    log = Invocations.load(Layout(out, "graphs"))
    assert len(log) == 2 and all(entry["finished"] for entry in log)
    assert "--data-dir" not in log[0]["command"] and str(data_dir) not in log[0]["command"]
    md = (out / "graphs.md").read_text()
    # the data set's cells and rows show the fold done and the reduced grid (2 of 20 configs)
    for label in ("GraphSAGE", "GFB-GraphSAGE"):
        assert "(1/10 folds, 2 of 20 configs)" in _row(md, f"| {label} |")
        assert "| hidden [16] × layers [1, 2] | 1/10 | 2 |" in _row(md, f"| MUTAG | {label} |")
    assert "| MUTAG | GCN | not run |" in md
    (out / "graphs.md").unlink()
    assert main([*argv, "--report-only"]) == 0
    assert (out / "graphs.md").read_text().count("(1/10 folds, 2 of 20 configs)") == 2
    assert _records(raw) == before and len(Invocations.load(Layout(out, "graphs"))) == 2


def test_any_tu_data_set_runs(tmp_path: Path) -> None:
    write_tu(tmp_path / "data", "TOY")
    out = tmp_path / "results"
    argv = ["reproduce", "graphs", "--data-dir", str(tmp_path / "data"), "--datasets", "TOY",
            "--models", "gcn", "--hiddens", "4", "--layers", "1", "--folds", "3", "--epochs", "1",
            "--graph-batch", "2", "--out", str(out)]
    assert main(argv) == 0
    assert set(_records(out / "raw" / "graphs")) == {
        f"dataset=TOY__model=gcn__fold={k}__hidden=4__layers=1.json" for k in (0, 1, 2)}
    md = (out / "graphs.md").read_text()
    assert "| TOY ours | TOY paper |" in md
    assert "(1 of 20 configs)" in _row(md, "| GCN |") and "folds" not in _row(md, "| GCN |")
    assert "| TOY | GCN | hidden [4] × layers [1] | 3/3 | 3 |" in md


def test_batch_runs_makes_every_record_and_resumes(tmp_path: Path) -> None:
    write_tu(tmp_path / "data", "TOY")
    out = tmp_path / "results"
    argv = ["reproduce", "graphs", "--data-dir", str(tmp_path / "data"), "--datasets", "TOY",
            "--models", "gcn", "gfb-sage", "--hiddens", "4", "8", "--layers", "1", "2",
            "--folds", "3", "--fold-limit", "1", "--epochs", "2", "--graph-batch", "2",
            "--batch-runs", "4", "--device", "cpu", "--out", str(out)]
    assert main(argv) == 0
    raw = out / "raw" / "graphs"
    records = _records(raw)
    assert set(records) == {f"dataset=TOY__model={m}__fold=0__hidden={h}__layers={n}.json"
                            for m in ("gcn", "gfb-sage") for h in (4, 8) for n in (1, 2)}
    for name in records:  # a fold's four configurations of a model trained as one
        assert json.loads((raw / name).read_text())["batched_runs"] == 4
    assert main(argv) == 0 and _records(raw) == records  # resumes: nothing re-run
    log = Invocations.load(Layout(out, "graphs"))
    assert "--batch-runs 4" in log[0]["command"]
    assert "| TOY | GFB-GraphSAGE | hidden [4, 8] × layers [1, 2] | 1/3 | 4 |" in \
        (out / "graphs.md").read_text()


@pytest.mark.parametrize("words, message", [
    (["--folds", "3", "--fold-limit", "4"], "error: --fold-limit must be <= --folds (3), got 4"),
    (["--folds", "2"], "error: argument --folds: must be >= 3"),
    (["--seed", "4294967290", "--folds", "10"],
     "error: --seed: fold k trains from seed S + k, and S + K - 1 must be <= 4294967295, "
     "got 4294967299"),
])
def test_folds_seed_and_fold_limit_agree_before_any_work(words, message, tmp_path,
                                                          capsys) -> None:
    out = tmp_path / "results"
    argv = ["reproduce", "graphs", "--data-dir", str(tmp_path / "nowhere"), "--datasets", "TOY",
            "--device", "cpu", *words, "--out", str(out)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(message), err
    assert not out.exists()  # nothing read, run or logged

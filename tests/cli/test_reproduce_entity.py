"""``gfbgcn reproduce entity`` end to end on AIFB (needs the data root; see tests/conftest.py):
report, records, BGS reported as unavailable offline, resumed runs, --report-only."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from gfbgcn.cli import main
from gfbgcn.reproduce.harness import Invocations, Layout


def _stamps(raw: Path) -> dict[str, int]:
    return {p.name: os.stat(p).st_mtime_ns for p in raw.glob("*=*.json")}


@pytest.mark.realdata
def test_cli_writes_report_and_resumes(aifb, data_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "results"
    argv = ["reproduce", "entity", "--data-dir", str(data_dir), "--datasets", "aifb", "bgs",
            "--models", "gfb-rgcn", "--seeds", "2", "--select-seeds", "0", "--fixed-epochs", "3",
            "--offline", "--out", str(out)]
    assert main(argv) == 0
    text = (out / "entity.md").read_text(encoding="utf-8")
    assert "| AIFB | GFB-R-GCN |" in text and "97.22" in text  # paper value beside ours
    assert "| BGS | GFB-R-GCN | not run: data unavailable offline |" in text
    assert "bgs_stripped.nt.gz" in text and "https://data.dgl.ai/dataset/bgs.tgz" in text
    assert str(data_dir) not in text and str(tmp_path) not in text  # no machine paths
    assert "--data-dir" not in text
    raw = out / "raw" / "entity"
    runs = sorted(raw.glob("phase=test__*.json"))
    assert len(runs) == 2 and not list(raw.glob("phase=select__*.json"))  # --select-seeds 0
    record = json.loads(runs[0].read_text(encoding="utf-8"))
    assert record["key"]["seed"] == 0 and record["config"]["model"] == "gfb-rgcn"
    assert record["config"]["epochs"] == 3 and record["epochs_run"] == 3
    assert "torch" in record["versions"]
    stamps = _stamps(raw)
    assert main(argv) == 0  # resumes: nothing retrained
    assert _stamps(raw) == stamps
    log = Invocations.load(Layout(out, "entity"))
    assert len(log) == 2 and all(entry["finished"] for entry in log)
    assert set(log[0]["wall_s"]) == {"aifb"}  # BGS was not run
    (out / "entity.md").unlink()
    assert main([*argv, "--report-only"]) == 0
    assert "| AIFB | GFB-R-GCN |" in (out / "entity.md").read_text(encoding="utf-8")
    assert _stamps(raw) == stamps and len(Invocations.load(Layout(out, "entity"))) == 2


def test_nothing_runnable_is_exit_status_1(tmp_path: Path, capsys) -> None:
    out = tmp_path / "results"
    assert main(["reproduce", "entity", "--data-dir", str(tmp_path), "--datasets", "bgs",
                 "--offline", "--out", str(out)]) == 1
    assert "bgs: not run" in capsys.readouterr().err
    assert "| BGS | R-GCN | not run" in (out / "entity.md").read_text(encoding="utf-8")

"""``benchmarks/auto_time.py``'s report: the CPU targets judge only CPU rows, and ``--device``
reaches the command and names the section."""

from __future__ import annotations

from tests.benchmarks._load import load_script


def _auto_time(monkeypatch):
    return load_script("auto_time", monkeypatch)


def _row(dataset: str, wall: float) -> dict:
    return {"dataset": dataset, "seed": 0, "wall": wall, "cpu": wall, "search": wall,
            "baseline": 1.0, "graphs": 1.0, "stopped": 0, "rss_mib": 100.0, "trained": 9,
            "chosen": "linear baseline", "test": 0.9, "load": 0.0}


def test_cpu_rows_are_judged_against_the_targets_gpu_rows_are_not(monkeypatch):
    auto_time = _auto_time(monkeypatch)
    rows = [_row("r8", 130.0), _row("subjectivity", 50.0)]
    cpu = auto_time.render(rows, 2, False, "", "cpu")
    assert "## One `--auto` search: wall time against the targets" in cpu
    assert "| r8 | 130.0 | 120 | MISSED |" in cpu and "| subjectivity | 50.0 | 60 | met |" in cpu
    assert "--out DIR --device cpu --no-cache` in a fresh process" in cpu
    gpu = auto_time.render(rows, 16, False, "", "cuda")
    assert "## One `--auto` search on cuda: wall time (the targets are the CPU's)" in gpu
    assert "| r8 | 130.0 | – | – |" in gpu and "MISSED" not in gpu
    assert "--device cuda --no-cache`" in gpu

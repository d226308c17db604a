"""``gfbgcn reproduce own-corpora`` honours the shared flags it shows: ``--workers``,
``--threads`` and ``--device`` reach the grid."""

from __future__ import annotations

from pathlib import Path

import torch

from gfbgcn.cli import main
from gfbgcn.reproduce.own_corpora import experiment


def test_workers_threads_and_device_reach_the_grid(tmp_path: Path, monkeypatch) -> None:
    seen: list[dict] = []
    monkeypatch.setattr(experiment, "run_own_grid", lambda *args, **kwargs: seen.append(kwargs))
    threads = max(1, torch.get_num_threads() // 2)  # torch's choice shared by 2 workers
    out = tmp_path / "results"
    argv = ["reproduce", "own-corpora", "--datasets", "r8", "r52", "--workers", "2",
            "--device", "cpu", "--out", str(out)]
    assert main(argv) == 0
    assert len(seen) == 2  # one call per data set, through the shared loop
    assert all((k["workers"], k["threads"], k["device"]) == (2, threads, torch.device("cpu"))
               for k in seen)
    assert (out / "raw" / "own-corpora" / "invocations.json").is_file()

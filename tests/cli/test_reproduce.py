"""The ``reproduce`` verbs' table (:mod:`gfbgcn.cli.reproduce`): every verb wired through the one
pair of functions, its results under its own task name, and the verb's options reaching the
reproduction wing it calls (``reproduce fidelity`` here; the other verbs have their own files)."""

from __future__ import annotations

from pathlib import Path

import torch

from gfbgcn.cli import COMMANDS, main
from gfbgcn.cli.reproduce import VERBS
from gfbgcn.reproduce.fidelity import report as fidelity_report
from gfbgcn.reproduce.fidelity import run as fidelity_run


def test_every_reproduce_verb_comes_from_the_table() -> None:
    rows = [(path[1], module, function) for path, module, function, _ in COMMANDS
            if path[0] == "reproduce"]
    assert rows == [(name, "gfbgcn.cli.reproduce", "reproduce") for name in VERBS]
    assert list(VERBS) == ["text", "inductive", "own-corpora", "entity", "graphs", "fidelity"]
    assert all(verb.help and callable(verb.arguments) and callable(verb.plan)
               for verb in VERBS.values())


def test_fidelity_options_reach_the_wing(tmp_path: Path, monkeypatch, capsys) -> None:
    calls: list[tuple[str, dict]] = []
    monkeypatch.setattr(fidelity_run, "run_row",
                        lambda row, store, **kwargs: calls.append((row.id, kwargs)))
    monkeypatch.setattr(fidelity_report, "write_report",
                        lambda layout: layout.report.write_text("rendered"))
    out = tmp_path / "results"
    argv = ["reproduce", "fidelity", "--rows", "text-r8-bp", "text-r8-gin", "--configs", "paper",
            "--max-seeds", "2", "--threads", "1", "--device", "cpu", "--out", str(out)]
    assert main(argv) == 0
    assert capsys.readouterr().out == f"wrote {out / 'fidelity.md'}\n"
    assert [row for row, _ in calls] == ["text-r8-bp", "text-r8-gin"]  # one loop item a row
    for _, kwargs in calls:
        assert (kwargs["seeds"], kwargs["configs"], kwargs["workers"], kwargs["threads"]) == (
            2, ["paper"], 1, 1)
        assert kwargs["device"] == torch.device("cpu") and kwargs["data_dir"] is None
    assert (out / "raw" / "fidelity" / "invocations.json").is_file()
    assert (out / "fidelity.md").read_text() == "rendered"

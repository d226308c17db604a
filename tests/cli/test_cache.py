"""``gfbgcn cache info`` and ``gfbgcn cache clear``: the location, the cap and each kind's
entries and size; removing a kind, or what was not used lately; bad values in one line, exit 2,
before any work (a bad ``$GFBGCN_CACHE_MAX`` for every verb)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from gfbgcn.cli import main

ENCODER = "ff121c0afa197fedc1ffa50193b69107"


def _file(path: Path, size: int, age_hours: float = 0.0) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"x" * size)
    when = time.time() - age_hours * 3600
    os.utime(path, (when, when))


@pytest.fixture()
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "cache"
    monkeypatch.setenv("GFBGCN_CACHE", str(root))
    monkeypatch.delenv("GFBGCN_CACHE_MAX", raising=False)
    _file(root / "graphs" / "r8-aaa.npz", 3 * 2**20, age_hours=30)
    _file(root / "graphs" / "texts-bbb.npz", 2**20)
    _file(root / "embeddings" / ENCODER / "0123abcd.npz", 2**19, age_hours=50)
    _file(root / "tu" / "018530bfe7e37cb6" / "data.pt", 1000, age_hours=50)
    return root


def test_info_prints_the_location_the_cap_and_each_kind(root, capsys):
    assert main(["cache", "info"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == f"location  {root}  ($GFBGCN_CACHE)"
    assert "size cap  8.0 GiB  ($GFBGCN_CACHE_MAX, the default)" in out
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines()[3:]}
    assert rows["graphs"] == ["2", "4.0", "MiB"] and rows["embeddings"] == ["1", "512.0", "KiB"]
    assert rows["other"] == ["1", "1000", "B"] and rows["total"][0] == "4"


def test_info_as_json_with_a_cap_from_the_environment(root, capsys, monkeypatch):
    monkeypatch.setenv("GFBGCN_CACHE_MAX", "500M")
    assert main(["cache", "info", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["root"] == str(root) and info["cap_bytes"] == 500 * 2**20
    assert info["kinds"]["graphs"] == {"entries": 2, "bytes": 4 * 2**20}
    assert info["total"]["entries"] == 4


def test_clear_a_kind_or_what_was_not_used_lately(root, capsys):
    assert main(["cache", "clear", "--kind", "graphs", "--older-than", "1d"]) == 0
    assert capsys.readouterr().out.strip() == (f"removed 1 entry (3.0 MiB) of graphs from "
                                               f"{root}")
    assert sorted(os.listdir(root / "graphs")) == ["texts-bbb.npz"]
    assert main(["cache", "clear"]) == 0
    assert capsys.readouterr().out.startswith("removed 3 entries (1.5 MiB) of graphs, "
                                              "embeddings, other from ")
    assert main(["cache", "info", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["total"] == {"entries": 0, "bytes": 0}


@pytest.mark.parametrize("argv, message", [
    (["cache", "clear", "--kind", "models"], "argument --kind: invalid choice: 'models'"),
    (["cache", "clear", "--older-than", "7"], "argument --older-than: must be a duration"),
])
def test_bad_options_are_one_line_exit_2_and_nothing_is_removed(root, capsys, argv, message):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {message}") and err.count("\n") == 1
    assert (root / "graphs" / "r8-aaa.npz").is_file()


def test_a_bad_cap_stops_every_verb_before_any_work(root, capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("GFBGCN_CACHE_MAX", "lots")
    assert main(["data", "stats", "--dataset", str(tmp_path / "missing.csv")]) == 2
    assert capsys.readouterr().err == ("error: environment variable GFBGCN_CACHE_MAX must be a "
                                       "size such as 8G, 500M or 2048 (bytes), or none, got "
                                       "'lots'\n")

"""RunStore: one JSON record per finished run, keyed by a mapping; logs beside them ignored."""

from __future__ import annotations

import json
from pathlib import Path

from gfbgcn.reproduce.store import RunStore


def test_save_load_done_and_file_names(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "raw")
    key = {"dataset": "r8", "model": "gfb-max", "seed": 0}
    assert not store.done(key) and list(store.records()) == []  # no directory yet
    path = store.save(key, {"test": {"accuracy": 0.9}})
    assert path.name == "dataset=r8__model=gfb-max__seed=0.json"
    assert store.done(key)
    assert store.load(key) == {"key": key, "test": {"accuracy": 0.9}}
    # unsafe characters in values are replaced, so a key cannot escape the directory
    odd = store.path({"dataset": "../x y", "config": "a/b"})
    assert odd.parent == tmp_path / "raw" and "/" not in odd.name and " " not in odd.name


def test_records_are_sorted_and_ignore_other_json_files(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    for seed in (2, 0, 1):
        store.save({"seed": seed}, {"value": seed})
    (tmp_path / "invocations.json").write_text(json.dumps([{"command": "gfbgcn reproduce"}]))
    (tmp_path / "notes.json").write_text("{}")
    records = list(store.records())
    assert [r["key"]["seed"] for r in records] == [0, 1, 2]
    assert all("value" in r for r in records)

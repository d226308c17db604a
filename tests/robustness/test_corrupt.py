"""E. Corrupt files on disk never block later runs: a damaged graph cache is rebuilt, a
damaged run record is run again (and skipped by reports), both with a warning naming the
file; an edited model configuration is refused; the Python API names a non-string document."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass

import pytest

import gfbgcn
from gfbgcn.reproduce.harness import run_pending
from gfbgcn.reproduce.store import RunStore
from tests.reproduce.text.test_report import _record as text_record


def _damage(path, how: str) -> None:
    data = bytearray(path.read_bytes())
    if how == "truncated":
        path.write_bytes(bytes(data[: len(data) // 2]))
    elif how == "bit-flipped":
        data[len(data) // 2] ^= 0x10
        path.write_bytes(bytes(data))
    else:
        path.write_bytes(b"not a zip file at all")


@pytest.mark.parametrize("how", ["truncated", "bit-flipped", "garbage"])
def test_corrupt_graph_cache_is_rebuilt(cli, corpus, tmp_path, monkeypatch, how):
    monkeypatch.setenv("GFBGCN_CACHE", str(tmp_path / "cache"))
    build = ["data", "build", "--dataset", corpus, "--min-freq", "1"]
    assert "cached (key" in cli(*build).out
    (cache,) = (tmp_path / "cache").rglob("*.npz")
    _damage(cache, how)
    result = cli(*build)
    assert result.status == 0, result.err
    assert f"warning: ignoring corrupt graph cache {cache}" in result.err
    assert "graph built" in result.out
    again = cli(*build)
    assert "already cached" in again.out and "warning" not in again.err


@dataclass(frozen=True)
class _Task:
    seed: int

    def key(self) -> dict:
        return {"dataset": "toy", "seed": self.seed}


def test_truncated_run_record_is_run_again(tmp_path):
    store = RunStore(tmp_path / "raw")
    tasks = [_Task(0), _Task(1)]
    assert run_pending(tasks, store, lambda t: {"accuracy": 0.5}) == 2
    record = store.path(_Task(1).key())
    record.write_text(record.read_text()[:15])  # a crash or a full disk cut it short
    with pytest.warns(UserWarning, match=f"ignoring corrupt run record {record}"):
        assert not store.done(_Task(1).key())
    with pytest.warns(UserWarning, match="corrupt run record"):
        assert run_pending(tasks, store, lambda t: {"accuracy": 0.75}) == 1
    assert store.load(_Task(1).key())["accuracy"] == 0.75
    assert store.load(_Task(0).key())["accuracy"] == 0.5


def test_report_only_survives_corrupt_records_and_log(cli, tmp_path):
    raw = tmp_path / "results" / "raw" / "text"
    raw.mkdir(parents=True)
    bad = raw / "dataset=r8__model=gcn__seed=0.json"
    bad.write_text('{"key": {"dataset": "r8", "mod')
    (raw / "invocations.json").write_text('[{"command": "gfbgcn reprod')
    record, key = text_record("gcn", 1, 0.9)  # one readable record beside the corrupt one
    RunStore(raw).save(key, record)
    result = cli("reproduce", "text", "--out", tmp_path / "results", "--report-only",
                 "--datasets", "r8", "--models", "gcn")
    assert result.status == 0, result.err
    assert f"ignoring corrupt run record {bad}" in result.err
    assert "ignoring corrupt invocation log" in result.err
    assert (tmp_path / "results" / "text.md").is_file()


def test_edited_model_configuration_is_refused(cli, saved_model, tmp_path):
    model = tmp_path / "model"
    shutil.copytree(saved_model, model)
    config = json.loads((model / "config.json").read_text())
    names = config["labels"]["names"]
    config["labels"]["names"] = [names[1], names[0], *names[2:]]  # swap two label names
    (model / "config.json").write_text(json.dumps(config, indent=2))
    cli("predict", model, "--text", "goal team").assert_user_error(
        "config.json: checksum mismatch", "configuration was modified")


def test_api_predict_names_a_non_string_document(saved_model):
    model = gfbgcn.load(saved_model)
    with pytest.raises(TypeError, match=r"texts\[2\] is float \(nan\), not str"):
        model.predict(["goal team", "code chip", float("nan")])
    with pytest.raises(TypeError, match=r"texts\[0\] is bytes"):
        model.predict_proba([b"goal"])

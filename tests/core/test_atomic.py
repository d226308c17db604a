"""Run and model directories written as a whole: kinds, refusals, atomic replacement."""

from __future__ import annotations

import json

import pytest

from gfbgcn.core import atomic
from gfbgcn.core.atomic import (
    MARKER,
    atomic_directory,
    check_outputs,
    directory_kind,
    write_marker,
)
from gfbgcn.core.errors import OptionError, UserError


def _run(path):
    """A run directory as ``train --out`` leaves it: its files and the marker."""
    path.mkdir()
    (path / "config.json").write_text(json.dumps({"train": {}}))
    (path / "metrics.json").write_text("{}")
    write_marker(path, "run")
    return path


def test_directory_kinds(tmp_path):
    assert directory_kind(tmp_path / "none") == "missing"
    (tmp_path / "empty").mkdir()
    assert directory_kind(tmp_path / "empty") == "empty"
    assert directory_kind(_run(tmp_path / "run")) == "run"
    model = tmp_path / "model"
    model.mkdir()
    (model / "config.json").write_text(json.dumps({"format": "gfbgcn-text-model"}))
    write_marker(model, "model")
    assert directory_kind(model) == "model"
    (model / "notes.txt").write_text("mine")
    assert directory_kind(model) == "other"
    lone = tmp_path / "lone"
    lone.mkdir()
    (lone / "config.json").write_text("{}")  # someone else's config.json
    assert directory_kind(lone) == "other"


@pytest.mark.parametrize("exchange", [True, False])
def test_replacement_is_whole_and_leaves_nothing_behind(tmp_path, monkeypatch, exchange):
    if not exchange:
        monkeypatch.setattr(atomic, "_exchange", lambda a, b: False)
    target = _run(tmp_path / "run")
    with atomic_directory(target, "run") as tmp:
        (tmp / "config.json").write_text(json.dumps({"train": {"seed": 2}}))
        assert json.loads((target / "config.json").read_text()) == {"train": {}}
    assert sorted(p.name for p in target.iterdir()) == [MARKER, "config.json"]
    assert json.loads((target / "config.json").read_text()) == {"train": {"seed": 2}}
    assert [p.name for p in tmp_path.iterdir()] == ["run"]


def test_failed_write_keeps_the_old_directory(tmp_path):
    target = _run(tmp_path / "run")
    with pytest.raises(RuntimeError), atomic_directory(target, "run") as tmp:
        (tmp / "config.json").write_text("half")
        raise RuntimeError("killed")
    assert sorted(p.name for p in target.iterdir()) == [MARKER, "config.json", "metrics.json"]
    assert [p.name for p in tmp_path.iterdir()] == ["run"]


def test_other_kinds_and_overlaps_refused(tmp_path):
    run = _run(tmp_path / "run")
    with pytest.raises(UserError, match="is a training run"), atomic_directory(run, "model"):
        pass
    with pytest.raises(OptionError, match="^out .* and save .* must be separate directories"):
        check_outputs(str(tmp_path / "x"), str(tmp_path / "x"))
    with pytest.raises(OptionError, match=r"^save .*: is a training run \(out\); ") as info:
        check_outputs(str(tmp_path / "y"), str(run))
    assert info.value.parameters == ("save", "out")
    check_outputs(str(tmp_path / "a"), str(tmp_path / "b"))


def test_a_symlinked_directory_is_replaced_where_it_points(tmp_path):
    target = _run(tmp_path / "real")
    (tmp_path / "link").symlink_to(target)
    with atomic_directory(tmp_path / "link", "run") as tmp:
        (tmp / "config.json").write_text(json.dumps({"train": {"seed": 7}}))
    assert (tmp_path / "link").is_symlink()
    assert json.loads((target / "config.json").read_text()) == {"train": {"seed": 7}}


def test_optional_files_of_auto_runs_and_combined_models_keep_their_kind(tmp_path):
    import json

    from gfbgcn.core.atomic import directory_kind

    run = tmp_path / "run"
    run.mkdir()
    (run / "config.json").write_text(json.dumps({"train": {}}))
    (run / "metrics.json").write_text("{}")
    (run / "auto.csv").write_text("candidate\n")
    write_marker(run, "run")
    assert directory_kind(run) == "run"
    model = tmp_path / "model"
    model.mkdir()
    (model / "config.json").write_text(json.dumps({"format": "gfbgcn-text-model"}))
    for name in ("model.safetensors", "vocab.json", "linear.safetensors", "linear.json"):
        (model / name).write_text("")
    write_marker(model, "model")
    assert directory_kind(model) == "model"
    (model / "notes.txt").write_text("mine")
    assert directory_kind(model) == "other"

"""D. Output directories never lose earlier results: a run (``--out``) and a model
(``--save``) are written as a whole, never over a directory of another kind, and checked for
writability before training."""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

import pytest

import gfbgcn

from .conftest import FAST


def _snapshot(directory):
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


def test_out_and_save_the_same_directory_is_refused(cli, corpus, tmp_path, monkeypatch):
    from gfbgcn.text.train import run as train

    monkeypatch.setattr(train, "train_text", lambda *a, **k: pytest.fail("trained anyway"))
    d = tmp_path / "d"
    cli("train", "--dataset", corpus, *FAST, "--out", d, "--save", d).assert_user_error(
        "--out", "--save", "separate directories")
    cli("train", "--dataset", corpus, *FAST, "--out", d, "--save", d / "model"
           ).assert_user_error("separate directories")


def test_out_over_a_saved_model_is_refused_and_the_model_survives(cli, corpus, saved_model):
    before = _snapshot(saved_model)
    cli("train", "--dataset", corpus, *FAST, "--out", saved_model).assert_user_error(
        "is a saved model", "refusing to replace it")
    assert _snapshot(saved_model) == before
    assert gfbgcn.load(saved_model).predict(["goal team"]).labels


def test_save_over_a_run_or_foreign_directory_is_refused(cli, corpus, tmp_path):
    run = tmp_path / "run"
    assert cli("train", "--dataset", corpus, *FAST, "--out", run).status == 0
    cli("train", "--dataset", corpus, *FAST, "--save", run).assert_user_error(
        "is a training run")
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "thesis.tex").write_text("years of work")
    cli("train", "--dataset", corpus, *FAST, "--out", mine).assert_user_error(
        "holds files gfbgcn did not write (thesis.tex)")
    assert (mine / "thesis.tex").read_text() == "years of work"


def test_rerun_replaces_a_run_as_a_whole(cli, corpus, tmp_path):
    run = tmp_path / "run"
    assert cli("train", "--dataset", corpus, *FAST, "--out", run, "--seed", "1").status == 0
    assert cli("train", "--dataset", corpus, *FAST, "--out", run, "--seed", "2").status == 0
    assert '"seed": 2' in (run / "config.json").read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus.csv", "run"]  # no leftovers


def test_run_interrupted_while_writing_keeps_the_previous_run(cli, corpus, tmp_path,
                                                              monkeypatch):
    from gfbgcn.text.train import run_files as train

    run = tmp_path / "run"
    assert cli("train", "--dataset", corpus, *FAST, "--out", run).status == 0
    before = _snapshot(run)

    def killed(history):
        raise KeyboardInterrupt  # a kill after config.json, before history and metrics

    monkeypatch.setattr(train, "history_csv", killed)
    result = cli("train", "--dataset", corpus, *FAST, "--out", run, "--seed", "5")
    assert result.status == 130
    assert _snapshot(run) == before  # all three files of the previous run, none of the new
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus.csv", "run"]


def test_resave_interrupted_keeps_the_previous_model_loadable(cli, corpus, tmp_path,
                                                              monkeypatch):
    from gfbgcn.text.predict import saved

    model = tmp_path / "model"
    assert cli("train", "--dataset", corpus, *FAST, "--save", model).status == 0
    before = _snapshot(model)

    def killed(tensors, filename, *args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(saved, "save_file", killed)
    assert cli("train", "--dataset", corpus, *FAST, "--save", model, "--seed", "3"
                  ).status == 130
    assert _snapshot(model) == before
    assert gfbgcn.load(model).label_names == ["food", "sport", "tech"]


def test_unwritable_output_is_refused_before_training(cli, corpus, tmp_path, monkeypatch):
    from gfbgcn.text.train import run as train

    monkeypatch.setattr(train, "train_text", lambda *a, **k: pytest.fail("trained anyway"))
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    cli("train", "--dataset", corpus, *FAST, "--out", blocker / "run").assert_user_error(
        "--out", "cannot write there")
    cli("train", "--dataset", corpus, *FAST, "--save", blocker).assert_user_error(
        "--save", "exists and is not a directory")


def test_read_only_parent_is_refused_before_training(cli, corpus, tmp_path, monkeypatch):
    """What a read-only directory does to a normal user (simulated: root ignores modes)."""
    import tempfile

    from gfbgcn.text.train import run as train

    def denied(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(train, "train_text", lambda *a, **k: pytest.fail("trained anyway"))
    monkeypatch.setattr(tempfile, "mkdtemp", denied)
    cli("train", "--dataset", corpus, *FAST, "--out", tmp_path / "run").assert_user_error(
        "--out", "cannot write there (Permission denied)")


def test_written_files_honour_the_umask(cli, corpus, tmp_path):
    old = os.umask(0o022)
    try:
        assert cli("train", "--dataset", corpus, *FAST, "--out", tmp_path / "run",
                      "--save", tmp_path / "model").status == 0
    finally:
        os.umask(old)
    for directory in (tmp_path / "run", tmp_path / "model"):
        assert stat.S_IMODE(directory.stat().st_mode) == 0o755
        for path in directory.iterdir():
            assert stat.S_IMODE(path.stat().st_mode) == 0o644, path


# ---- A. one output policy in every verb (gfbgcn.core.paths.outputs) ---------------------------


def test_predict_never_replaces_its_input(cli, saved_model, tmp_path):
    docs = tmp_path / "c.csv"
    docs.write_text("text\ngoal team\nbread soup\n")
    before = docs.read_bytes()
    cli("predict", saved_model, "--input", docs, "--output", docs).assert_user_error(
        "--output", "is an input of this command", "refusing to replace it")
    assert docs.read_bytes() == before


def test_predict_never_writes_into_the_model_directory(cli, saved_model):
    before = _snapshot(saved_model)
    for name in ("config.json", "predictions.csv"):
        cli("predict", saved_model, "--text", "goal team", "--output", saved_model / name
            ).assert_user_error("--output")
    assert _snapshot(saved_model) == before
    assert gfbgcn.load(saved_model).predict(["goal team"]).labels


def test_predict_output_dash_is_standard_output(cli, saved_model, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = cli("predict", saved_model, "--text", "goal team", "--output", "-")
    assert result.status == 0, result.err
    assert result.out.startswith("row,label") and not (tmp_path / "-").exists()


def test_predict_output_pipe_is_written_through(cli, saved_model, tmp_path):
    import threading

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)
    reader.start()  # `--output >(gzip > p.gz)`: a reader waits on the pipe
    result = cli("predict", saved_model, "--text", "goal team", "--output", fifo)
    reader.join(timeout=60)
    assert result.status == 0, result.err
    assert fifo.is_fifo() and received and received[0].startswith(b"row,label")


@pytest.mark.parametrize("option", ["--out", "--save", "--data-dir", "--dataset"])
def test_an_empty_train_path_is_refused_when_parsed(cli, corpus, option, monkeypatch):
    from gfbgcn.cli import options

    monkeypatch.setattr(options, "load_corpus", lambda *a, **k: pytest.fail("read a corpus"))
    argv = ["train", "--dataset", corpus, *FAST, option, ""]
    cli(*argv).assert_user_error(f"argument {option}: empty path")


@pytest.mark.parametrize("option", ["--output", "--input"])
def test_an_empty_predict_path_is_refused_when_parsed(cli, saved_model, option, tmp_path,
                                                      monkeypatch):
    monkeypatch.chdir(tmp_path)
    cli("predict", saved_model, "--text", "goal", option, "").assert_user_error(
        f"argument {option}: empty path")
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("verb", [["reproduce", "text"], ["reproduce", "graphs"],
                                  ["figures", "pooling"]], ids=" ".join)
def test_an_empty_results_directory_is_refused(cli, verb):
    cli(*verb, "--out", "").assert_user_error("argument --out: empty path")


@pytest.mark.parametrize("verb", [["reproduce", "text", "--datasets", "r8", "--models", "gcn"],
                                  ["reproduce", "graphs", "--datasets", "MUTAG"],
                                  ["reproduce", "entity", "--datasets", "aifb"],
                                  ["figures", "pooling"]], ids=lambda v: " ".join(v[:2]))
def test_results_never_go_into_a_saved_model(cli, verb, saved_model):
    before = _snapshot(saved_model)
    for extra in ([], ["--report-only"]) if verb[0] == "reproduce" else ([],):
        cli(*verb, *extra, "--out", saved_model).assert_user_error(
            "--out", "is a saved model")
    assert _snapshot(saved_model) == before


def test_predict_output_to_a_process_substitution(cli, saved_model):
    """``gfbgcn predict m --text ... --output >(gzip > p.csv.gz)``: ``/dev/fd/N`` of a pipe."""
    read, write = os.pipe()
    try:
        result = cli("predict", saved_model, "--text", "goal team", "--output",
                     f"/dev/fd/{write}")
        assert result.status == 0, result.err
        assert os.read(read, 1000).startswith(b"row,label")
    finally:
        os.close(read)
        os.close(write)


@pytest.mark.parametrize(("name", "content"), [
    ("vocab.json", '["my", "words"]'),
    ("metrics.json", '{"mine": 1}'),
    ("history.csv", "epoch,loss\n1,0.5\n"),
    ("config.json", '{"train": "my own settings"}'),
])
@pytest.mark.parametrize("option", ["--out", "--save"])
def test_a_user_directory_with_a_gfbgcn_file_name_is_not_replaced(cli, corpus, tmp_path,
                                                                  monkeypatch, name, content,
                                                                  option):
    """Only the marker gfbgcn writes makes a directory gfbgcn's, never the files' names."""
    from gfbgcn.text.train import run as train

    monkeypatch.setattr(train, "train_text", lambda *a, **k: pytest.fail("trained anyway"))
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / name).write_text(content)
    cli("train", "--dataset", corpus, *FAST, option, mine).assert_user_error(
        option, str(mine), "refusing to replace it")
    assert _snapshot(mine) == {name: content.encode()}


def test_a_marked_run_is_replaced_and_an_unmarked_model_is_not(cli, corpus, tmp_path,
                                                               saved_model):
    from gfbgcn.core.atomic import MARKER

    run = tmp_path / "run"
    assert cli("train", "--dataset", corpus, *FAST, "--out", run).status == 0
    assert json.loads((run / MARKER).read_text()) == {"written_by": "gfbgcn", "kind": "run"}
    assert cli("train", "--dataset", corpus, *FAST, "--out", run).status == 0
    # a signed config.json alone does not make a directory gfbgcn's: only the marker does
    unmarked = tmp_path / "unmarked"
    shutil.copytree(saved_model, unmarked)
    (unmarked / MARKER).unlink()
    cli("train", "--dataset", corpus, *FAST, "--save", unmarked).assert_user_error(
        "--save", str(unmarked), "no .gfbgcn marker file", "refusing to replace it")
    assert not (unmarked / MARKER).exists()


def test_the_committed_results_keep_working(cli):
    """``docs/results`` stays a results directory, and its run directories (written by ``train
    --out``, see docs/benchmarks.md) carry the marker, so re-running them replaces them."""
    from gfbgcn.core.atomic import directory_kind
    from gfbgcn.core.paths.outputs import check_results_directory

    results = Path(__file__).resolve().parents[2] / "docs" / "results"
    assert check_results_directory(str(results)) == results
    runs = sorted(p.parent for p in results.glob("raw/*/*/config.json"))
    assert runs, "the committed mini-batch runs"
    assert {directory_kind(run) for run in runs} == {"run"}

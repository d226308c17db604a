"""The output-path policy: what may be replaced, what is written through, what is refused."""

from __future__ import annotations

import json
import os

import pytest

from gfbgcn.core.atomic import write_marker
from gfbgcn.core.errors import OptionError
from gfbgcn.core.paths.outputs import check_results_directory, nonempty_path, output_file


def test_an_empty_path_is_refused():
    with pytest.raises(OptionError, match="^data_dir: empty path") as info:
        nonempty_path("", "data_dir")
    assert info.value.render(lambda p: "--data-dir").startswith("--data-dir: empty path")
    with pytest.raises(OptionError, match="empty path"):
        output_file("  ", "output")


def test_dash_is_standard_output(capsys):
    out = output_file("-", "output")
    out.write_text("a,b\n")
    assert capsys.readouterr().out == "a,b\n" and out.name == "standard output"


def test_a_regular_file_is_replaced_whole(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("old")
    output_file(str(path), "output").write_text("new")
    assert path.read_text() == "new"


def test_a_link_to_a_regular_file_keeps_the_link(tmp_path):
    real, link = tmp_path / "real.csv", tmp_path / "link.csv"
    real.write_text("old")
    link.symlink_to(real)
    output_file(str(link), "output").write_text("new")
    assert link.is_symlink() and real.read_text() == "new"


def test_a_pipe_is_written_through_not_replaced(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    out = output_file(str(fifo), "output")
    assert out.write_through
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        out.write_text("through\n")
        assert os.read(reader, 100) == b"through\n"
    finally:
        os.close(reader)
    assert fifo.is_fifo()


def test_a_device_is_written_through(tmp_path):
    out = output_file(os.devnull, "output")
    assert out.write_through
    out.write_text("discarded")
    link = tmp_path / "null"
    link.symlink_to(os.devnull)
    assert output_file(str(link), "output").write_through


def test_an_input_is_never_replaced(tmp_path):
    corpus = tmp_path / "c.csv"
    corpus.write_text("text\nx\n")
    alias = tmp_path / "alias.csv"
    alias.symlink_to(corpus)
    for given in (corpus, alias):
        with pytest.raises(OptionError, match="is an input of this command"):
            output_file(str(given), "output", inputs=[str(corpus)])
    assert corpus.read_text() == "text\nx\n"


def _model_dir(path):
    path.mkdir()
    (path / "config.json").write_text(json.dumps({"format": "gfbgcn-text-model"}))
    (path / "model.safetensors").write_bytes(b"")
    (path / "vocab.json").write_text("[]")
    write_marker(path, "model")
    return path


def test_nothing_is_written_into_a_model_directory(tmp_path):
    model = _model_dir(tmp_path / "m")
    for name in ("config.json", "model.safetensors", "new.csv"):
        with pytest.raises(OptionError, match="inside a saved model"):
            output_file(str(model / name), "output")


def test_a_directory_is_not_an_output_file(tmp_path):
    with pytest.raises(OptionError, match="is a directory"):
        output_file(str(tmp_path), "output")


def test_a_results_directory_is_not_a_model(tmp_path):
    model = _model_dir(tmp_path / "m")
    with pytest.raises(OptionError, match=r"^out .*: is a saved model \(save\); ") as info:
        check_results_directory(str(model))
    assert info.value.parameters == ("out", "save")  # the command line shows --out, --save
    (tmp_path / "f").write_text("x")
    with pytest.raises(OptionError, match="not a directory"):
        check_results_directory(str(tmp_path / "f"))
    assert check_results_directory(str(tmp_path / "results")) == tmp_path / "results"


def test_a_process_substitution_is_written_through():
    """``--output >(gzip > p.gz)`` names ``/dev/fd/63``: a link to ``pipe:[...]``, no path."""
    read, write = os.pipe()
    try:
        out = output_file(f"/dev/fd/{write}", "output")
        assert out.write_through
        out.write_text("through\n")
        assert os.read(read, 100) == b"through\n"
    finally:
        os.close(read)
        os.close(write)


def test_dev_stdout_redirected_to_a_file_is_written_through(tmp_path):
    """``gfbgcn predict ... --output /dev/stdout > p.csv``: the shell's descriptor is written,
    not its file renamed over (which would cut the caller's descriptor off its file)."""
    log = tmp_path / "p.csv"
    with open(log, "w") as fh:
        out = output_file(f"/proc/self/fd/{fh.fileno()}", "output")
        assert out.write_through
        out.write_text("a,b\n")
        inode = os.fstat(fh.fileno()).st_ino
    assert log.read_text() == "a,b\n" and log.stat().st_ino == inode

"""Inputs that are pipes, process substitutions or UTF-16 text."""

from __future__ import annotations

import os
import threading

from .conftest import FAST


def _feed(fifo, data: bytes) -> threading.Thread:
    """Write ``data`` into the named pipe from another thread, as a shell's ``<(cmd)`` does."""
    def write() -> None:
        with open(fifo, "wb") as fh:
            fh.write(data)
    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    return thread


def test_predict_reads_a_named_pipe(cli, saved_model, tmp_path):
    fifo = tmp_path / "docs"
    os.mkfifo(fifo)
    writer = _feed(fifo, b"match goal team\nchip network device\n")
    result = cli("predict", saved_model, "--input", fifo)
    writer.join(timeout=10)
    assert result.status == 0, result.err
    assert result.out.splitlines()[0].startswith("row,label")
    assert len(result.out.splitlines()) == 3


def test_predict_reads_utf16_plain_text_with_a_bom(cli, saved_model, tmp_path):
    path = tmp_path / "docs.txt"
    path.write_bytes("match goal team\nchip network device\n".encode("utf-16"))
    result = cli("predict", saved_model, "--input", path)
    assert result.status == 0, result.err
    assert "warning" not in result.err and len(result.out.splitlines()) == 3


def test_predict_names_a_directory_input(cli, saved_model, tmp_path):
    cli("predict", saved_model, "--input", tmp_path).assert_user_error("is a directory")


def test_stop_words_from_a_named_pipe(cli, corpus, tmp_path):
    fifo = tmp_path / "stop.txt"
    os.mkfifo(fifo)
    writer = _feed(fifo, b"goal\nteam\n")
    result = cli("train", "--dataset", corpus, *FAST, "--stop-words", fifo)
    writer.join(timeout=10)
    assert result.status == 0, result.err

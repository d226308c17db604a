"""The input-path policy: regular files, directories and streams, each wrong kind one error
naming the path and what it is, and no named pipe waited on forever (for reading here, for
writing in :mod:`gfbgcn.core.paths.outputs`)."""

from __future__ import annotations

import os
import socket
import threading
import time
from pathlib import Path

import pytest

from gfbgcn.core.errors import InputError, ModelLoadError, UserError
from gfbgcn.core.paths.inputs import (
    check_directory,
    check_entries,
    check_stream,
    is_regular_file,
    read_stream,
)
from gfbgcn.core.paths.outputs import open_written_through


@pytest.fixture()
def fifo(tmp_path) -> Path:
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


def _later(action, delay: float = 0.2) -> threading.Thread:
    thread = threading.Thread(target=lambda: (time.sleep(delay), action()), daemon=True)
    thread.start()
    return thread


def test_a_regular_file_or_nothing(tmp_path) -> None:
    path = tmp_path / "a.txt"
    assert not is_regular_file(path)  # missing: the caller names what it expected
    path.write_text("x")
    assert is_regular_file(path)
    link = tmp_path / "link"
    link.symlink_to(path)
    assert is_regular_file(link)
    assert not is_regular_file(tmp_path / "a.txt" / "below")  # under a file: nothing there


def test_anything_else_is_named_with_its_kind(tmp_path, fifo) -> None:
    with pytest.raises(InputError, match=r"pipe: is a named pipe \(FIFO\), not a regular file; "
                                         "because"):
        is_regular_file(fifo, "; because")
    link = tmp_path / "to-pipe"
    link.symlink_to(fifo)
    with pytest.raises(InputError, match="to-pipe: is a named pipe"):
        is_regular_file(link)
    with pytest.raises(ModelLoadError, match="is a directory, not a regular file"):
        is_regular_file(tmp_path, error=ModelLoadError)
    with pytest.raises(InputError, match="/dev/null: is a character device"):
        is_regular_file("/dev/null")
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(tmp_path / "s"))
        with pytest.raises(InputError, match="s: is a socket"):
            is_regular_file(tmp_path / "s")


def test_a_directory_or_nothing(tmp_path, fifo) -> None:
    assert check_directory(tmp_path) and not check_directory(tmp_path / "missing")
    (tmp_path / "f").write_text("x")
    with pytest.raises(InputError, match="f: is a regular file, not a directory"):
        check_directory(tmp_path / "f")
    with pytest.raises(ModelLoadError, match="^encoder x: is a named pipe"):
        check_directory(fifo, "encoder x", ModelLoadError)


def test_entries_of_a_folder_are_files_or_folders(tmp_path, fifo) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "ok.json").write_text("{}")
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    with pytest.raises(InputError, match=r"^model m: pipe is a named pipe \(FIFO\)"):
        check_entries(tmp_path, "model m")
    fifo.unlink()
    check_entries(tmp_path, "model m")  # files, folders and a dangling link: fine


def test_a_stream_is_read_once_whatever_it_is(tmp_path, fifo) -> None:
    path = tmp_path / "docs.txt"
    path.write_bytes(b"a\nb\n")
    assert read_stream(path) == b"a\nb\n"
    writer = _later(lambda: fifo.write_bytes(b"from a writer\n"))  # started after the reader
    assert read_stream(fifo, wait=30) == b"from a writer\n"
    writer.join()
    closer = _later(lambda: open(fifo, "wb").close())  # a writer that writes nothing
    assert read_stream(fifo, wait=30) == b""
    closer.join()


def test_a_descriptors_pipe_is_read_without_a_wait() -> None:
    """``<(cmd)`` gives ``/dev/fd/N``: its writer is there from the start."""
    read, write = os.pipe()
    os.write(write, b"substituted\n")
    os.close(write)
    try:
        assert read_stream(f"/dev/fd/{read}", wait=0) == b"substituted\n"
    finally:
        os.close(read)


def test_a_named_pipe_nothing_writes_to_is_an_error_not_a_hang(fifo) -> None:
    start = time.monotonic()
    with pytest.raises(InputError, match=r"pipe: a named pipe that nothing was written to "
                                         r"within 0\.3 s; start its writer first"):
        read_stream(fifo, wait=0.3)
    assert time.monotonic() - start < 10  # bounded: the wait, not forever


def test_streams_that_are_not_files_are_refused(tmp_path) -> None:
    with pytest.raises(InputError, match="/dev/zero: is a character device, not a file of "
                                         "documents"):
        read_stream("/dev/zero", "documents")  # it would never end
    with pytest.raises(InputError, match="is a directory, not a file of documents"):
        read_stream(tmp_path, "documents")
    with pytest.raises(InputError, match=r"nothing: not found \(documents\)"):
        read_stream(tmp_path / "nothing", "documents")
    assert check_stream(tmp_path / "nothing") is None
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(tmp_path / "s"))
        with pytest.raises(InputError, match="is a socket, not a file of documents"):
            check_stream(tmp_path / "s", "documents")


def test_a_named_pipe_nothing_reads_is_an_error_not_a_hang(fifo) -> None:
    start = time.monotonic()
    with pytest.raises(UserError, match="pipe: a named pipe that nothing read from within "
                                        r"0\.3 s; start its reader first"):
        open_written_through(fifo, wait=0.3)
    assert time.monotonic() - start < 10


def test_a_named_pipe_with_a_reader_is_written_through(fifo) -> None:
    got: list[bytes] = []
    reader = _later(lambda: got.append(fifo.read_bytes()))
    with open_written_through(fifo, wait=30) as fh:
        fh.write("row,label\n")
    reader.join(timeout=30)
    assert got == [b"row,label\n"]

"""Every path option of every verb, given what it cannot read or write as it expects: a named
pipe nothing writes to or reads from, a socket, a character device that never ends, a
directory where a file is expected and a file where a directory is.  Each ends in one error
line naming the path, exit status 2, within a bounded time (an alarm turns a hang into a
failure).  The options are listed from the parsers, so a new path option without a case fails
:func:`test_every_path_option_has_a_case`."""

from __future__ import annotations

import contextlib
import signal
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from gfbgcn.cli import COMMANDS, verb_parser
from gfbgcn.cli.runtime.argtypes import PATH_TYPES
from gfbgcn.core.paths import inputs, outputs
from tests.robustness.conftest import FAST, documents, write_csv

#: Options that name a path although their type is text (a language or a file).
NAMES_OR_PATHS = {"--stop-words"}
#: What each path option expects: a file read (``file``), a directory read (``directory``),
#: or something written (``output``: a file; ``output-directory``).
EXPECTS = {"--dataset": "file", "--stop-words": "file", "--input": "file",
           "MODEL_DIR": "directory", "--encoder": "directory", "--data-dir": "directory",
           "--output": "output", "--out": "output-directory", "--save": "output-directory",
           "--tensorboard": "output-directory"}
#: A hang would otherwise stop the suite: every case must end well within this.
ALARM_SECONDS = 60


def _path_options(path: tuple[str, ...]) -> list[str]:
    names = []
    for action in verb_parser(path)._actions:
        name = action.option_strings[0] if action.option_strings else str(action.metavar)
        if action.type in PATH_TYPES or name in NAMES_OR_PATHS:
            names.append(name)
    return names


VERBS = [path for path, _, _, _ in COMMANDS]
OPTIONS = [(path, name) for path in VERBS for name in _path_options(path)]


def test_every_path_option_has_a_case() -> None:
    assert OPTIONS, "no path option found"
    for path, name in OPTIONS:
        assert name in EXPECTS, f"{' '.join(path)} {name}: add what it expects to EXPECTS"


class Hang(BaseException):
    """Raised by the alarm: a ``BaseException``, so that no ``except OSError`` of the code
    under test takes it for a user's error."""


@contextlib.contextmanager
def _alarm(seconds: int) -> Iterator[None]:
    """:class:`Hang` in the main thread after ``seconds`` (a blocked ``open()`` of a pipe
    included: the signal interrupts it)."""
    def ring(signum, frame):
        raise Hang(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, ring)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture()
def short_waits(monkeypatch) -> None:
    """Pipes wait half a second for their other end, not thirty."""
    monkeypatch.setattr(inputs, "WRITER_WAIT", 0.5)
    monkeypatch.setattr(outputs, "READER_WAIT", 0.5)


@pytest.fixture()
def places(tmp_path) -> dict[str, Path]:
    """The bad things a path can name, under ``tmp_path`` (a socket name must stay short)."""
    fifo = tmp_path / "pipe.csv"
    import os

    os.mkfifo(fifo)
    folder = tmp_path / "folder.csv"
    folder.mkdir()
    regular = write_csv(tmp_path / "regular.csv", documents(2))
    return {"fifo": fifo, "folder": folder, "regular": regular, "zero": Path("/dev/zero")}


@pytest.fixture()
def unix_socket(tmp_path) -> Iterator[Path]:
    path = tmp_path / "s.csv"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    yield path
    server.close()


def _command(verb: tuple[str, ...], name: str, bad: Path, model: Path, corpus: Path,
             tmp_path: Path) -> list[str]:
    """A command line of ``verb`` that is right but for option ``name``, which names ``bad``."""
    first = {"predict": [str(model), "--text", "goal"],
             "evaluate": [str(model), "--input", str(corpus)],
             "serve": [str(model), "--port", "0"],
             "train": ["--dataset", str(corpus), *FAST],
             "data": ["--dataset", str(corpus), "--min-freq", "1", "--no-cache"],
             "reproduce": ["--report-only", "--out", str(tmp_path / "results")],
             "figures": []}[verb[0]]
    words = list(verb)
    if name == "MODEL_DIR":
        return [*words, str(bad), *first[1:]]
    if name in first:  # replace the value this command line already gives
        at = first.index(name) + 1
        first = [*first[:at], str(bad), *first[at + 1:]]
        return [*words, *first]
    return [*words, *first, name, str(bad)]


def _bad_places(expects: str, places: dict[str, Path]) -> dict[str, Path]:
    """The wrong kinds of path for an option that ``expects`` one kind."""
    wrong = {"file": places["folder"], "directory": places["regular"],
             "output": places["folder"], "output-directory": places["regular"]}[expects]
    bad = {"fifo": places["fifo"], "wrong kind": wrong}
    if expects == "file":
        bad["endless device"] = places["zero"]
    return bad


CASES = [(verb, name, kind) for verb, name in OPTIONS
         for kind in ("fifo", "socket", "wrong kind", "endless device")
         if kind != "endless device" or EXPECTS.get(name) == "file"]


@pytest.mark.parametrize("verb, name, kind", CASES,
                         ids=[f"{' '.join(v)} {n} {k}" for v, n, k in CASES])
def test_a_path_it_cannot_use_is_one_error_line(verb, name, kind, cli, saved_model, places,
                                                unix_socket, short_waits, tmp_path) -> None:
    if name == "--out" and verb == ("figures", "pooling"):
        pytest.importorskip("matplotlib")
    bad = unix_socket if kind == "socket" else _bad_places(EXPECTS[name], places)[kind]
    corpus = write_csv(tmp_path / "corpus.csv", documents())
    argv = _command(verb, name, bad, saved_model, corpus, tmp_path)
    with _alarm(ALARM_SECONDS):
        result = cli(*argv)
    result.assert_user_error(str(bad))

"""``gfbgcn evaluate`` against hostile and odd labelled files, and a failing standard output:
each file is either scored (the odd but valid ones) or refused in one ``error:`` line naming
the file and line (exit 2), never an internal error; the evaluation directory is written whole
or not at all.  The plain mistakes (a missing column, a missing label, an ``--out`` that is a
model) are ``test_evaluate.py``'s."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.robustness.conftest import documents, write_csv
from tests.robustness.test_streams import _env

LABELLED = ("text", "label")


def _rows() -> list[tuple[str, str]]:
    return [(text, label) for text, label, _ in documents()]


def _bytes(data: bytes) -> Callable[[Path], Path]:
    def write(folder: Path) -> Path:
        (folder / "in.csv").write_bytes(data)
        return folder / "in.csv"

    return write


def _jsonl(text: str) -> Callable[[Path], Path]:
    def write(folder: Path) -> Path:
        (folder / "in.jsonl").write_text(text, encoding="utf-8")
        return folder / "in.jsonl"

    return write


def _csv(rows: list[tuple[str, str]]) -> Callable[[Path], Path]:
    return lambda folder: write_csv(folder / "in.csv", rows, header=LABELLED)


#: Files that are odd but valid: scored, with the number of documents.
SCORED = {
    "a byte-order mark and CRLF line ends": (_bytes(
        b"\xef\xbb\xbftext,label\r\n"
        + b"".join(f'"{t}",{y}\r\n'.encode() for t, y in _rows())), 24),
    "a newline inside a quoted text": (_csv([("match\ngoal", "sport"), *_rows()]), 25),
    "a text of 300 KB (over csv's default field limit)": (
        _csv([("goal " * 60000, "sport"), *_rows()]), 25),
    "a NUL byte in a text": (_bytes(b"text,label\nmatch\0goal,sport\n"), 1),
    "only labels the model never saw": (_csv([("match goal", "politics")]), 1),
}

#: Files refused in one line: what the line must say.
REFUSED = {
    "a header and no rows": (_csv([]), "no labelled documents"),
    "an empty file": (_bytes(b""), "columns found: none"),
    "binary bytes": (_bytes(bytes(range(256)) * 10), "no column 'text'"),
    "bytes that are not UTF-8": (_bytes(b"text,label\nmatch \xff goal,sport\n"),
                                 "in.csv:2: undecodable bytes (utf-8)"),
    "a row with a field too many": (_bytes(b"text,label\nmatch,sport,extra\n"),
                                    "in.csv:2: expected 2 columns"),
    "a column named twice": (_bytes(b"text,text,label\na,b,sport\n"), "more than once"),
    "a number as the text": (_jsonl('{"text": 3, "label": "sport"}\n'),
                             "in.jsonl:1: text (column 'text') must be a string"),
    "NaN as the label": (_jsonl('{"text": "a", "label": NaN}\n'), "in.jsonl:1: label"),
    "a JSON array per line": (_jsonl("[1, 2]\n"), "a JSON object per line"),
    "JSON nested 100,000 deep": (_jsonl('{"text": ' + "[" * 100_000 + "]" * 100_000
                                        + ', "label": "sport"}\n'),
                                 "in.jsonl:1: invalid JSON: nested too deeply"),
}


@pytest.mark.parametrize("case", list(SCORED))
def test_odd_but_valid_files_are_scored(cli, saved_model, tmp_path, case) -> None:
    write, count = SCORED[case]
    out = tmp_path / "ev"
    result = cli("evaluate", saved_model, "--input", write(tmp_path), "--out", out)
    assert result.status == 0, result.err
    metrics = json.loads((out / "metrics.json").read_text(encoding="utf-8"))
    assert (out / "predictions.csv").read_text(encoding="utf-8").count("\n") >= count + 1
    assert "Traceback" not in result.err and metrics


@pytest.mark.parametrize("case", list(REFUSED))
def test_hostile_files_are_one_line_and_write_nothing(cli, saved_model, tmp_path,
                                                     case) -> None:
    write, message = REFUSED[case]
    out = tmp_path / "ev"
    cli("evaluate", saved_model, "--input", write(tmp_path), "--out", out).assert_user_error(
        message)
    assert not out.exists()


def test_an_out_that_is_a_file_is_refused_before_the_work(cli, saved_model, tmp_path) -> None:
    (tmp_path / "ev").write_text("mine", encoding="utf-8")
    cli("evaluate", saved_model, "--input", _csv(_rows())(tmp_path), "--out", tmp_path / "ev"
        ).assert_user_error("exists and is not a directory")
    assert (tmp_path / "ev").read_text(encoding="utf-8") == "mine"


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
def test_a_full_stdout_loses_no_evaluation(saved_model, tmp_path) -> None:
    """``gfbgcn evaluate ... --out DIR > /dev/full``: the report cannot be printed, the
    evaluation directory is written all the same, and the lost output is one line."""
    out = tmp_path / "ev"
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "gfbgcn", "evaluate", str(saved_model),
                               "--input", str(_csv(_rows())(tmp_path)), "--out", str(out)],
                              env=_env(), stdout=full, stderr=subprocess.PIPE, timeout=300)
    err = done.stderr.decode()
    assert done.returncode == 2, err
    assert "error: writing standard output" in err and "Traceback" not in err, err
    assert json.loads((out / "metrics.json").read_text(encoding="utf-8"))

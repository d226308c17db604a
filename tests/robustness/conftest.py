"""Helpers of the robustness suite: tiny corpora written under ``tmp_path`` and a way to run
``gfbgcn`` exactly as a user would, capturing the exit status and both output streams."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
import torch

from gfbgcn.cli import main

#: Three classes with their own words: a 2-epoch model on 24 documents still learns them.
WORDS = {
    "sport": "match goal team player score coach league season",
    "tech": "computer software code chip network device server laptop",
    "food": "recipe bread cheese soup flavor kitchen baking dinner",
}

#: Options that keep a training run to well under a second.
FAST = ["--min-freq", "1", "--window", "3", "--epochs", "2", "--hidden", "8", "--threads", "1",
        "--quiet", "--no-cache"]


def documents(per_class: int = 8) -> list[tuple[str, str, str]]:
    """``(text, label, split)`` rows: per class, every fourth document is a test document."""
    rows = []
    for label, words in WORDS.items():
        vocab = words.split()
        for i in range(per_class):
            text = " ".join(vocab[(i + j) % len(vocab)] for j in range(5))
            rows.append((text, label, "test" if i % 4 == 3 else "train"))
    return rows


def write_csv(path: Path, rows: Sequence[Sequence[str]], header: Sequence[str] = ("text", "label",
              "split"), delimiter: str = ",") -> Path:
    buf = io.StringIO()
    writer = csv.writer(buf, delimiter=delimiter, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    path.write_text(buf.getvalue(), encoding="utf-8")
    return path


def write_jsonl(path: Path, rows: Sequence[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@dataclass
class Result:
    """What a user sees: the exit status, standard output and standard error."""

    status: int
    out: str
    err: str

    @property
    def error_lines(self) -> list[str]:
        return [line for line in self.err.splitlines() if line.startswith("error:")]

    def assert_user_error(self, *fragments: str) -> None:
        """Exit 2, one ``error:`` line holding every fragment, and no traceback."""
        assert self.status == 2, (self.status, self.err)
        assert "Traceback" not in self.err
        assert len(self.error_lines) == 1, self.err
        for fragment in fragments:
            assert fragment in self.error_lines[0], (fragment, self.error_lines[0])


@pytest.fixture()
def cli(capsys) -> Iterator:
    """``cli(*argv) -> Result``: :func:`gfbgcn.cli.main` as the command line runs it
    (argparse's own exits included)."""
    before = torch.get_num_threads()

    def run(*argv: str) -> Result:
        capsys.readouterr()
        try:
            status = main([str(a) for a in argv])
        except SystemExit as stop:  # argparse: bad option values, --help
            status = stop.code if isinstance(stop.code, int) else 1
        captured = capsys.readouterr()
        return Result(status, captured.out, captured.err)

    yield run
    torch.set_num_threads(before)


@pytest.fixture()
def corpus(tmp_path) -> Path:
    """A valid 24-document CSV corpus with a split column."""
    return write_csv(tmp_path / "corpus.csv", documents())


@pytest.fixture(scope="session")
def saved_model(tmp_path_factory) -> Path:
    """A model saved by ``gfbgcn train --save`` on the small corpus (trained once)."""
    root = tmp_path_factory.mktemp("robust-model")
    data = write_csv(root / "corpus.csv", documents())
    model = root / "model"
    assert main(["train", "--dataset", str(data), *FAST, "--save", str(model)]) == 0
    return model


@pytest.fixture(scope="session")
def saved_multi_label_model(tmp_path_factory) -> Path:
    """A multi-label model (every third document also ``sport``, labels joined by ``|``) saved
    by ``gfbgcn train --multi-label --save`` (trained once)."""
    root = tmp_path_factory.mktemp("robust-multi-label")
    rows = [(text, label if i % 3 else f"{label}|sport", split)
            for i, (text, label, split) in enumerate(documents())]
    data = write_csv(root / "corpus.csv", rows)
    model = root / "model"
    assert main(["train", "--dataset", str(data), *FAST, "--multi-label", "--no-baseline",
                 "--save", str(model)]) == 0
    return model

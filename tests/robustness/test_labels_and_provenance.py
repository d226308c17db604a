"""C. Weak spots of reading a user's corpus: one label spelt in NFC and NFD is one class, a
``;``-separated CSV gets a hint, and a run directory records what made it."""

from __future__ import annotations

import json
import unicodedata

from gfbgcn.text.corpus.table import load_table

from .conftest import FAST, documents, write_csv


def test_nfc_and_nfd_spellings_of_a_label_are_one_class(tmp_path):
    nfc, nfd = unicodedata.normalize("NFC", "café"), unicodedata.normalize("NFD", "café")
    assert nfc != nfd
    rows = [(text, nfc if label == "food" and i % 2 else nfd if label == "food" else label,
             split) for i, (text, label, split) in enumerate(documents())]
    corpus = load_table(write_csv(tmp_path / "c.csv", rows))
    assert sorted(set(corpus.labels)) == sorted({nfc, "sport", "tech"})


def test_a_semicolon_separated_csv_gets_a_hint(cli, tmp_path):
    path = write_csv(tmp_path / "c.csv", documents(), delimiter=";")
    cli("data", "stats", "--dataset", path).assert_user_error(
        "columns found: 'text;label;split'", "separated by ';'", "',' separators")


def test_the_run_directory_records_the_command_the_file_and_its_columns(cli, tmp_path):
    rows = [(text, label, split) for text, label, split in documents()]
    path = write_csv(tmp_path / "c.csv", rows, header=("body", "topic", "split"))
    argv = ["train", "--dataset", str(path), *FAST, "--text-col", "body", "--label-col",
            "topic", "--out", str(tmp_path / "run")]
    result = cli(*argv)
    assert result.status == 0, result.err
    run = json.loads((tmp_path / "run" / "config.json").read_text())["run"]
    assert run["command"] == ["gfbgcn", *argv]
    (source,) = run["input"]["files"]
    assert source["path"] == str(path.absolute()) and len(source["sha256"]) == 64
    assert run["input"]["columns"] == {"text": "body", "label": "topic", "split": None}

"""Users' own corpora: CSV, TSV and JSONL files, the stratified split, and every bad row."""

from __future__ import annotations

import numpy as np
import pytest

from gfbgcn.core.errors import CorpusFormatError
from gfbgcn.text.corpus.table import load_table, stratified_train_mask


def test_csv_with_split_column(tmp_path):
    path = tmp_path / "c.csv"
    path.write_text('text,label,split\n"hello, world",pos,train\nbad day,neg,test\n')
    corpus = load_table(path)
    assert corpus.texts == ["hello, world", "bad day"]
    assert corpus.is_train.tolist() == [True, False]


def test_stratified_split_is_seeded_and_reported(tmp_path):
    path = tmp_path / "c.tsv"
    rows = [f"doc {i}\t{'ab'[i % 2]}" for i in range(40)]
    path.write_text("text\tlabel\n" + "\n".join(rows) + "\n")
    a, b = load_table(path, seed=1), load_table(path, seed=1)
    np.testing.assert_array_equal(a.is_train, b.is_train)
    assert int((~a.is_train).sum()) == 4
    labels = np.array(a.labels)
    assert (labels[~a.is_train] == "a").sum() == 2, "stratified per class"
    assert any("seed 1" in n for n in a.notes)


@pytest.mark.parametrize(
    "content, problem",
    [
        ("text,label\nok,a\n,b\n", "missing text"),
        ("text,label\nok,a\nfine,\n", "missing label"),
        ("text,label\nok,a\nx,y,z\n", "expected 2 columns"),
    ],
)
def test_bad_csv_rows_name_file_and_line(tmp_path, content, problem):
    path = tmp_path / "c.csv"
    path.write_text(content)
    with pytest.raises(CorpusFormatError, match=rf"c.csv:3: {problem}"):
        load_table(path)
    corpus = load_table(path, skip_bad_rows=True)
    assert len(corpus) == 1 and "skipped 1 bad row" in corpus.notes[0]


def test_undecodable_bytes_name_the_line(tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_bytes(b'{"text": "ok", "label": "a"}\n{"text": "\xff\xfe", "label": "b"}\n')
    with pytest.raises(CorpusFormatError, match=r"c.jsonl:2: undecodable"):
        load_table(path)
    csv_path = tmp_path / "c.csv"
    csv_path.write_bytes(b"text,label\nok,a\nbad \xff,b\nfine,c\n")
    with pytest.raises(CorpusFormatError, match=r"c.csv:3: undecodable"):
        load_table(csv_path)
    assert load_table(csv_path, skip_bad_rows=True).texts == ["ok", "fine"]


def test_stratified_train_mask_per_class():
    labels = ["a"] * 10 + ["b"] * 5 + ["c"]
    mask = stratified_train_mask(labels, 0.2, seed=3)
    arr = np.array(labels)
    assert (~mask[arr == "a"]).sum() == 2 and (~mask[arr == "b"]).sum() == 1
    assert mask[arr == "c"].all()  # a single document stays in training
    np.testing.assert_array_equal(mask, stratified_train_mask(labels, 0.2, seed=3))
    with pytest.raises(ValueError, match="test_size"):
        stratified_train_mask(labels, 1.0, seed=0)


def test_jsonl_tsv_and_bad_inputs(tmp_path):
    jsonl = tmp_path / "c.jsonl"
    jsonl.write_text('{"text": "x y", "label": "a", "split": "train"}\n\n'
                     '{"text": "z", "label": "b", "split": "test"}\n')
    corpus = load_table(jsonl)
    assert corpus.texts == ["x y", "z"] and corpus.is_train.tolist() == [True, False]
    tsv = tmp_path / "c.tsv"
    tsv.write_text("body\ttopic\nhello\tp\n")
    assert load_table(tsv, text_col="body", label_col="topic", split_col=None,
                      name="n").name == "n"
    bad_split = tmp_path / "s.csv"
    bad_split.write_text("text,label,split\nok,a,train\nno,b,validate\n")
    with pytest.raises(CorpusFormatError, match=r"s.csv:3: split must be"):
        load_table(bad_split)
    (tmp_path / "c.xml").write_text("<x/>")
    with pytest.raises(CorpusFormatError, match="unsupported extension"):
        load_table(tmp_path / "c.xml")
    with pytest.raises(FileNotFoundError):
        load_table(tmp_path / "missing.csv")
    (tmp_path / "j.jsonl").write_text('[1, 2]\n{"text": "a"\n')
    with pytest.raises(CorpusFormatError, match=r"j.jsonl:1: a JSON object"):
        load_table(tmp_path / "j.jsonl")


def test_column_errors_name_the_python_parameters(tmp_path):
    """From Python the messages name load_table's parameters; the command line shows its
    options (``--text-col``: tests/robustness/test_columns.py)."""
    path = tmp_path / "c.csv"
    path.write_text("body,label\nhello,a\n", encoding="utf-8")
    with pytest.raises(CorpusFormatError, match=r":1: no column 'text' \(text_col\); columns "
                       r"found: 'body', 'label'$"):
        load_table(path)
    with pytest.raises(CorpusFormatError, match=r"^text_col and label_col both name column"):
        load_table(path, text_col="label", label_col="label")

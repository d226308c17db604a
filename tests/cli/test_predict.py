"""Input and output of ``gfbgcn predict``: documents from files or stdin, predictions as CSV."""

from __future__ import annotations

import io
import sys

import numpy as np
import pytest

from gfbgcn.cli.predict import predictions_csv, read_documents
from gfbgcn.core.errors import InputError
from gfbgcn.text.predict.inductive import Predictions


def test_tables_jsonl_and_plain_lines(tmp_path):
    (tmp_path / "d.csv").write_text('\ufeffid,text\n1,"a, b"\n2,\n', encoding="utf-8")
    assert read_documents(str(tmp_path / "d.csv")) == ["a, b", ""]  # BOM dropped, empty kept
    (tmp_path / "d.tsv").write_text("body\tx\nfirst\t1\nsecond\t2\n", encoding="utf-8")
    assert read_documents(str(tmp_path / "d.tsv"), text_col="body") == ["first", "second"]
    (tmp_path / "d.jsonl").write_text('{"text": "one"}\n\n{"text": 2}\n', encoding="utf-8")
    assert read_documents(str(tmp_path / "d.jsonl")) == ["one", "2"]
    (tmp_path / "d.txt").write_text("line one\nline two\n", encoding="utf-8")
    assert read_documents(str(tmp_path / "d.txt")) == ["line one", "line two"]


def test_stdin_and_replaced_bytes(monkeypatch, tmp_path):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"a b\nc\n")))
    assert read_documents("-") == ["a b", "c"]
    (tmp_path / "bad.txt").write_bytes(b"ok\ncaf\xe9\n")
    with pytest.warns(UserWarning, match="first at line 2"):
        assert read_documents(str(tmp_path / "bad.txt")) == ["ok", "caf\ufffd"]


def test_input_errors(tmp_path):
    with pytest.raises(InputError, match="not found"):
        read_documents(str(tmp_path / "missing.csv"))
    (tmp_path / "d.csv").write_text("body\nx\n", encoding="utf-8")
    with pytest.raises(InputError, match="no column 'text'"):
        read_documents(str(tmp_path / "d.csv"))
    (tmp_path / "d.jsonl").write_text('{"text": "a"}\n{broken\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"d.jsonl:2: invalid JSON"):
        read_documents(str(tmp_path / "d.jsonl"))
    (tmp_path / "e.jsonl").write_text('{"body": "a"}\n', encoding="utf-8")
    with pytest.raises(InputError, match="key 'text'"):
        read_documents(str(tmp_path / "e.jsonl"))


def test_single_label_csv_with_top_k():
    pred = Predictions(labels=["b", "a"], probabilities=np.array([[0.2, 0.7, 0.1],
                                                                   [0.5, 0.25, 0.25]]),
                       label_names=["a", "b", "c"], no_known_words=np.array([False, False]))
    assert predictions_csv(pred).splitlines() == [
        "row,label,probability", "0,b,0.700000", "1,a,0.500000"]
    assert predictions_csv(pred, top_k=2).splitlines() == [
        "row,label,probability,label_2,probability_2",
        "0,b,0.700000,a,0.200000", "1,a,0.500000,b,0.250000"]  # ties: the first column
    assert len(predictions_csv(pred, top_k=9).splitlines()[0].split(",")) == 7  # capped at 3


def test_multi_label_csv_joins_labels():
    pred = Predictions(labels=[["a", "c"], []], probabilities=np.array([[0.9, 0.1, 0.6],
                                                                         [0.2, 0.3, 0.1]]),
                       label_names=["a", "b", "c"], no_known_words=np.array([False, True]),
                       multi_label=True, threshold=0.5)
    assert predictions_csv(pred, label_sep=";").splitlines() == [
        "row,labels,probabilities", "0,a;c,0.900000;0.600000", "1,,"]

"""The shared CSV/TSV/JSONL record reader: record start lines, strict quoting with resync,
TSV without quoting, byte-order marks, line ends, long fields."""

from __future__ import annotations

import codecs

import pytest

from gfbgcn.text.corpus.records import decode_lines, read_table, split_records


def test_records_know_their_first_line_and_resume_after_a_quoting_error():
    lines = ['a,b\n', '"open,1\n', 'x,2\n', '"multi\n', 'line",3\n', 'y,4\n']
    got = [(first, last, fields, error is not None) for first, last, fields, error in
           split_records(lines, "csv")]
    assert got[0] == (1, 1, ["a", "b"], False)
    assert got[1][0] == 2 and got[1][3]  # the unclosed quote of line 2 is an error of line 2
    # reading resumes on line 3: nothing after the broken line is lost
    assert (3, 3, ["x", "2"], False) in got
    assert (4, 5, ["multi\nline", "3"], False) in got
    assert got[-1] == (6, 6, ["y", "4"], False)


def test_tsv_takes_quotes_literally():
    lines = ['text\tlabel\n', '"quoted start\ta\n', 'plain\tb\n']
    assert [f for _, _, f, _ in split_records(lines, "tsv")] == [
        ["text", "label"], ['"quoted start', "a"], ["plain", "b"]]


@pytest.mark.parametrize("bom,encoding", [(codecs.BOM_UTF8, "utf-8"), (b"", "utf-16"),
                                          (b"", "utf-16-le")])
def test_byte_order_marks(bom, encoding):
    raw = bom + "text,label\nhé,a\n".encode(encoding)
    if encoding == "utf-16-le":
        raw = codecs.BOM_UTF16_LE + raw
    lines, bad = decode_lines(raw, "utf-8", "f.csv")
    assert lines == ["text,label\n", "hé,a\n"] and not bad


def test_only_real_line_ends_split_lines():
    lines, _ = decode_lines("a\u2028b,x\r\nc\rd\n".encode(), "utf-8", "f.csv")
    assert lines == ["a\u2028b,x\r\n", "c\r", "d\n"]


def test_undecodable_line_is_reported_with_its_number():
    lines, bad = decode_lines(b"text,label\nok,a\nbad \xff,b\n", "utf-8", "f.csv")
    assert list(bad) == [3] and "undecodable" in bad[3] and len(lines) == 3


def test_long_field_and_suspected_merge(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text('text,label\n' + "w " * 100_000 + ',a\n"one,a\ntwo",b\n')
    table = read_table(path, "csv")
    assert [r.error for r in table.rows] == [None, None]
    assert len(table.rows[0].values["text"]) == 200_000
    assert table.suspects == ["line 3: a quoted field runs to line 4 and both lines look like "
                              "rows of their own (an unclosed quote?)"]

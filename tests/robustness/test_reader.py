"""B. The corpus reader never drops, merges or mis-splits a document silently: every
document of the file is read, or the error names the file and line."""

from __future__ import annotations

import json

from .conftest import FAST, documents, write_csv, write_jsonl


def stats(cli, path, *options) -> dict:
    result = cli("data", "stats", "--dataset", path, "--min-freq", "1", "--no-cache",
                    "--json", *options)
    assert result.status == 0, result.err
    return json.loads(result.out)


def test_split_column_with_empty_first_cell_is_not_ignored(cli, tmp_path):
    rows = documents()
    rows[0] = (rows[0][0], rows[0][1], "")
    path = write_csv(tmp_path / "c.csv", rows)
    cli("data", "stats", "--dataset", path, "--no-cache").assert_user_error(
        "c.csv:2:", "missing split value")
    # skipping the row keeps the split column of the other 23 documents
    result = stats(cli, path, "--skip-bad-rows")
    assert result["docs"] == 23 and result["test_docs"] == 6


def test_split_column_used_when_only_later_rows_fill_it(cli, tmp_path):
    """A file whose first rows leave the split empty: their lines are named, not the column
    dropped for a random split."""
    rows = [(t, lab, s if i >= 3 else "") for i, (t, lab, s) in enumerate(documents())]
    path = write_csv(tmp_path / "c.csv", rows)
    result = cli("data", "stats", "--dataset", path, "--no-cache", "--skip-bad-rows")
    assert result.status == 0
    assert "no split column" not in result.out and "skipped 3 bad row(s)" in result.out


def test_tsv_text_starting_with_a_quote_keeps_every_document(cli, tmp_path):
    rows = [(f'"{t}' if i % 5 == 0 else t, lab, s) for i, (t, lab, s) in enumerate(documents())]
    path = tmp_path / "c.tsv"
    path.write_text("text\tlabel\tsplit\n" + "".join("\t".join(r) + "\n" for r in rows))
    result = stats(cli, path)
    assert result["docs"] == 24 and result["test_docs"] == 6


def test_csv_unclosed_quote_names_its_line_and_skipping_loses_only_it(cli, tmp_path):
    rows = documents()
    lines = ["text,label,split"] + [",".join(r) for r in rows]
    lines[5] = '"' + lines[5]  # line 6 of the file opens a quote that never closes
    path = tmp_path / "c.csv"
    path.write_text("\n".join(lines) + "\n")
    cli("train", "--dataset", path, *FAST).assert_user_error("c.csv:6:", "unclosed quote")
    assert stats(cli, path, "--skip-bad-rows")["docs"] == 23


def test_csv_stray_quote_after_a_quoted_field(cli, tmp_path):
    lines = ["text,label,split"] + [",".join(r) for r in documents()]
    lines[3] = '"great" team player,sport,train'
    path = tmp_path / "c.csv"
    path.write_text("\n".join(lines) + "\n")
    cli("data", "stats", "--dataset", path).assert_user_error("c.csv:4:", "malformed quoting")


def test_csv_quote_that_closes_rows_later_is_reported(cli, tmp_path):
    """``"a,b`` ... ``c",d``: a valid parse that merges two rows; the user is told."""
    lines = ["text,label,split"] + [",".join(r) for r in documents()]
    lines[2] = '"' + lines[2]
    lines[3] = lines[3].replace(",sport,", '",sport,')
    path = tmp_path / "c.csv"
    path.write_text("\n".join(lines) + "\n")
    result = cli("data", "stats", "--dataset", path, "--min-freq", "1", "--no-cache")
    assert result.status == 0
    assert "c.csv: line 3: a quoted field runs to line 4" in result.out
    assert "unclosed quote?" in result.out


def test_quoted_line_breaks_are_one_document(cli, tmp_path):
    rows = documents()
    rows[0] = ("first line\nsecond line, with a comma", rows[0][1], rows[0][2])
    assert stats(cli, write_csv(tmp_path / "c.csv", rows))["docs"] == 24


def test_field_longer_than_the_csv_module_limit(cli, tmp_path):
    rows = documents()
    rows[0] = (" ".join(["goal"] * 40_000), rows[0][1], rows[0][2])  # 199,999 characters
    assert len(rows[0][0]) > 131_072
    result = stats(cli, write_csv(tmp_path / "c.csv", rows))
    assert result["docs"] == 24


def test_utf8_byte_order_mark(cli, tmp_path):
    path = write_csv(tmp_path / "c.csv", documents())
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert stats(cli, path)["docs"] == 24


def test_utf16_with_byte_order_mark(cli, tmp_path):
    path = write_csv(tmp_path / "c.csv", documents())
    path.write_bytes(path.read_text().encode("utf-16"))
    assert stats(cli, path)["docs"] == 24


def test_encoding_option_for_latin1_corpus(cli, tmp_path):
    rows = [(t.replace("flavor", "café"), lab, s) for t, lab, s in documents()]
    path = write_csv(tmp_path / "c.csv", rows)
    path.write_bytes(path.read_text().encode("latin-1"))
    cli("data", "stats", "--dataset", path).assert_user_error("c.csv:", "undecodable bytes")
    assert stats(cli, path, "--encoding", "latin-1")["docs"] == 24
    result = cli("train", "--dataset", path, *FAST, "--encoding", "latin-1")
    assert result.status == 0, result.err


def test_wrong_header_names_the_columns_found(cli, tmp_path):
    path = write_csv(tmp_path / "c.csv", documents(), header=("body", "category", "split"))
    cli("train", "--dataset", path, *FAST).assert_user_error(
        "c.csv:1:", "no column 'text' (--text-col) or 'label' (--label-col)",
        "columns found: 'body', 'category', 'split'")
    assert stats(cli, path, "--text-col", "body", "--label-col", "category")["docs"] == 24


def test_jsonl_wrong_key_names_the_keys_found(cli, tmp_path):
    path = write_jsonl(tmp_path / "c.jsonl", [{"body": t, "label": lab} for t, lab, _ in
                                              documents()])
    cli("data", "stats", "--dataset", path).assert_user_error(
        "c.jsonl:1:", "no column 'text'", "keys found: 'body', 'label'")


def test_wrong_column_count_names_the_line_and_columns(cli, tmp_path):
    lines = ["text,label,split"] + [",".join(r) for r in documents()]
    lines[7] = "goal team, player,sport,train"
    path = tmp_path / "c.csv"
    path.write_text("\n".join(lines) + "\n")
    cli("data", "stats", "--dataset", path).assert_user_error(
        "c.csv:8:", "expected 3 columns (text, label, split), found 4", "--skip-bad-rows")


def test_predict_input_unclosed_quote_is_an_error_not_a_merged_row(cli, saved_model,
                                                                  tmp_path):
    path = tmp_path / "new.csv"
    path.write_text('text\n"goal team player\nsoftware code chip\n')
    cli("predict", saved_model, "--input", path).assert_user_error("new.csv:2:",
                                                                       "unclosed quote")


def test_predict_input_one_row_per_document(cli, saved_model, tmp_path):
    long_text = " ".join(["goal"] * 40_000)
    path = tmp_path / "new.tsv"
    path.write_bytes(("text\n\"goal team\nsoftware code\n" + long_text + "\n").encode("utf-16"))
    result = cli("predict", saved_model, "--input", path)
    assert result.status == 0, result.err
    assert len(result.out.splitlines()) == 4  # header + 3 documents


def test_predict_plain_text_input_one_document_per_line(cli, saved_model, tmp_path):
    path = tmp_path / "new.txt"
    path.write_text("goal team\x0cplayer\nsoftware\u2028code\r\nsoup bread\n", newline="")
    result = cli("predict", saved_model, "--input", path)
    assert result.status == 0, result.err
    assert len(result.out.splitlines()) == 4  # header + 3 documents, not 5

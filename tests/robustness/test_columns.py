"""Columns and values the user named are used as named, or refused in one line."""

from __future__ import annotations

import json

from .conftest import FAST, documents, write_csv, write_jsonl


def test_a_misspelt_split_column_is_refused_not_replaced_by_a_random_split(cli, tmp_path):
    corpus = write_csv(tmp_path / "c.csv", documents())
    result = cli("train", "--dataset", corpus, "--split-col", "mysplit", *FAST)
    result.assert_user_error("no column 'mysplit' (--split-col)", "columns found")


def test_the_default_split_column_is_used_when_present(cli, tmp_path):
    corpus = write_csv(tmp_path / "c.csv", documents())
    result = cli("data", "stats", "--dataset", corpus, "--min-freq", "1", "--json", "--no-cache")
    assert result.status == 0, result.err
    assert json.loads(result.out)["test_docs"] == 6


def test_one_column_for_text_and_label_is_refused(cli, tmp_path):
    corpus = write_csv(tmp_path / "c.csv", documents())
    result = cli("train", "--dataset", corpus, "--text-col", "label", "--label-col", "label",
                 *FAST)
    result.assert_user_error("--text-col and --label-col both name column 'label'")


def test_a_repeated_header_name_is_refused(cli, tmp_path):
    corpus = write_csv(tmp_path / "c.csv", [(t, label, label) for t, label, _ in documents()],
                       header=("text", "label", "label"))
    cli("train", "--dataset", corpus, *FAST).assert_user_error(
        "c.csv:1: column name(s) 'label' appear more than once")


def _jsonl_rows(**override):
    rows = [{"text": t, "label": label, "split": s} for t, label, s in documents()]
    rows[2].update(override)
    return rows


def test_jsonl_nan_label_is_refused_with_its_line(cli, tmp_path):
    path = tmp_path / "c.jsonl"
    rows = [json.dumps(r) for r in _jsonl_rows()]
    rows[2] = rows[2].replace('"label": "sport"', '"label": NaN')
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    cli("train", "--dataset", path, *FAST).assert_user_error(
        "c.jsonl:3: label (column 'label') must be a string or an integer, got JSON nan")


def test_jsonl_list_as_text_is_refused(cli, tmp_path):
    path = write_jsonl(tmp_path / "c.jsonl", _jsonl_rows(text=["a", "list"]))
    cli("train", "--dataset", path, *FAST).assert_user_error(
        "c.jsonl:3: text (column 'text') must be a string, got JSON list")


def test_jsonl_object_as_label_is_refused(cli, tmp_path):
    path = write_jsonl(tmp_path / "c.jsonl", _jsonl_rows(label={"x": 1}))
    cli("train", "--dataset", path, *FAST).assert_user_error(
        "c.jsonl:3: label (column 'label') must be a string or an integer, got JSON object")


def test_jsonl_integer_labels_are_classes(cli, tmp_path):
    rows = [{"text": t, "label": ["sport", "tech", "food"].index(label), "split": s}
            for t, label, s in documents()]
    path = write_jsonl(tmp_path / "c.jsonl", rows)
    result = cli("data", "stats", "--dataset", path, "--min-freq", "1", "--json", "--no-cache")
    assert result.status == 0, result.err
    assert json.loads(result.out)["classes"] == 3


def test_jsonl_repeated_key_is_refused(cli, tmp_path):
    path = tmp_path / "c.jsonl"
    lines = [json.dumps(r) for r in _jsonl_rows()]
    lines[2] = lines[2][:-1] + ', "label": "tech"}'
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    cli("train", "--dataset", path, *FAST).assert_user_error(
        "c.jsonl:3: invalid JSON object: key(s) 'label' appear more than once")


def test_test_documents_repeating_training_documents_are_warned(cli, tmp_path):
    rows = documents()
    rows.append((rows[0][0], rows[0][1], "test"))  # the first training text again, as a test
    corpus = write_csv(tmp_path / "c.csv", rows)
    result = cli("train", "--dataset", corpus, *FAST)
    assert result.status == 0, result.err
    assert "warning: " in result.err and "1 test document(s) also occur in the training set" \
        in result.err

"""``gfbgcn evaluate`` (a saved model scored on a labelled file) and ``gfbgcn predict``'s id
column, plain-text and standard-input documents, run as a user would."""

from __future__ import annotations

import csv
import io
import json
import sys

from gfbgcn.core.atomic import directory_kind
from tests.core.test_extras import _block
from tests.robustness.conftest import documents, write_csv, write_jsonl


def _labelled(tmp_path, unknown: bool = False):
    """Every document of the small corpus with an id; with ``unknown``, two more documents
    labelled ``politics``, which the model never saw."""
    rows = [(f"doc{i}", text, label) for i, (text, label, _) in enumerate(documents())]
    if unknown:
        rows += [("p1", "match goal team", "politics"), ("p2", "recipe bread", "politics")]
    return write_csv(tmp_path / "labelled.csv", rows, header=("id", "text", "label"))


def _predicted(cli, model, path) -> list[str]:
    result = cli("predict", model, "--input", path)
    assert result.status == 0, result.err
    return [row["label"] for row in csv.DictReader(io.StringIO(result.out))]


def test_evaluate_prints_the_scores_of_predict_answers(cli, saved_model, tmp_path) -> None:
    data = _labelled(tmp_path)
    result = cli("evaluate", saved_model, "--input", data)
    assert result.status == 0, result.err
    truth = [label for _, label, _ in documents()]
    predicted = _predicted(cli, saved_model, data)
    accuracy = sum(p == t for p, t in zip(predicted, truth)) / len(truth)
    lines = result.out.splitlines()
    assert lines[0].startswith(f"24 documents, 3 classes: accuracy {accuracy:.4f} | ")
    assert "confusion matrix (rows: true label, columns: predicted)" in result.out
    confusion = lines[-3:]  # food, sport, tech: the model's label order
    assert [line.split()[0] for line in confusion] == ["food", "sport", "tech"]
    assert sum(int(line.split()[1 + i]) for i, line in enumerate(confusion)) == round(
        accuracy * 24)


def test_evaluate_out_writes_the_evaluation_directory(cli, saved_model, tmp_path) -> None:
    data, out = _labelled(tmp_path, unknown=True), tmp_path / "eval"
    result = cli("evaluate", saved_model, "--input", data, "--id-col", "id", "--out", out)
    assert result.status == 0, result.err
    assert "2 document(s) have labels the model does not know, always wrong: 'politics' (2)" \
        in result.out
    assert directory_kind(out) == "evaluation"
    names = {p.name for p in out.iterdir()}
    assert {"metrics.json", "per_class.csv", "confusion.csv", "predictions.csv",
            "confusion.png"} <= names
    metrics = json.loads((out / "metrics.json").read_text(encoding="utf-8"))
    assert metrics["documents"] == 26 and metrics["unknown_labels"]["labels"] == {"politics": 2}
    assert metrics["input"]["columns"] == {"text": "text", "label": "label", "id": "id"}
    rows = list(csv.DictReader(open(out / "predictions.csv", encoding="utf-8")))
    assert [r["id"] for r in rows[-2:]] == ["p1", "p2"]
    assert {r["correct"] for r in rows[-2:]} == {"0"}  # a label the model lacks: always wrong
    assert sum(int(r["correct"]) for r in rows) == round(metrics["accuracy"] * 26)
    # again into the same directory: an earlier evaluation is replaced
    assert cli("evaluate", saved_model, "--input", data, "--out", out).status == 0
    assert "id" not in open(out / "predictions.csv", encoding="utf-8").readline()


def test_evaluate_without_matplotlib_notes_the_missing_figure(cli, saved_model, tmp_path,
                                                             monkeypatch) -> None:
    _block(monkeypatch, "matplotlib")
    out = tmp_path / "eval"
    result = cli("evaluate", saved_model, "--input", _labelled(tmp_path), "--out", out)
    assert result.status == 0, result.err
    assert ("note: no confusion.png: matplotlib is not installed (pip install "
            "'gfbgcn[figures]')") in result.err
    assert (out / "confusion.csv").exists() and not (out / "confusion.png").exists()


def test_evaluate_refuses_bad_input_in_one_line(cli, saved_model, tmp_path) -> None:
    data = _labelled(tmp_path)
    cli("evaluate", saved_model, "--input", data, "--label-col", "topic").assert_user_error(
        "no column 'topic' (--label-col)")
    cli("evaluate", saved_model, "--input", data, "--id-col", "text").assert_user_error(
        "--text-col and --id-col both name column 'text'")
    cli("evaluate", saved_model, "--input", tmp_path / "none.csv").assert_user_error(
        "input file not found")
    bad = write_csv(tmp_path / "bad.csv", [("match goal", "sport"), ("recipe bread", "")],
                    header=("text", "label"))
    cli("evaluate", saved_model, "--input", bad).assert_user_error(
        "bad.csv:3: missing label (column 'label')")
    text = tmp_path / "plain.txt"
    text.write_text("match goal\n", encoding="utf-8")
    cli("evaluate", saved_model, "--input", text).assert_user_error("unsupported extension")
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine")
    cli("evaluate", saved_model, "--input", data, "--out", mine).assert_user_error(
        "holds files gfbgcn did not write")
    cli("evaluate", saved_model, "--input", data, "--out", saved_model).assert_user_error(
        "is a saved model")
    cli("evaluate", saved_model, "--input", data, "--out", saved_model / "eval"
        ).assert_user_error("lies inside a gfbgcn model directory")
    assert not (saved_model / "eval").exists() and (mine / "notes.txt").read_text() == "mine"


def test_evaluate_multi_label(cli, saved_multi_label_model, tmp_path) -> None:
    data = write_jsonl(tmp_path / "ml.jsonl", [
        {"text": "match goal team", "label": "sport"},
        {"text": "recipe bread cheese", "label": "food|sport"},
        {"text": "computer software", "label": "tech|weather"}])
    out = tmp_path / "eval"
    result = cli("evaluate", saved_multi_label_model, "--input", data, "--out", out)
    assert result.status == 0, result.err
    assert result.out.startswith("3 documents, 3 labels, threshold ")
    assert "micro F1" in result.out and "subset accuracy" in result.out
    assert "'weather' (1)" in result.out
    metrics = json.loads((out / "metrics.json").read_text(encoding="utf-8"))
    assert metrics["multi_label"] and "confusion_matrix" not in metrics
    assert metrics["per_class"]["weather"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0,
                                               "support": 1, "known": False}
    assert not (out / "confusion.csv").exists()


# ---- gfbgcn predict: ids, plain text, standard input ---------------------------------------


def test_predict_id_column_passes_through(cli, saved_model, tmp_path) -> None:
    data = _labelled(tmp_path)
    result = cli("predict", saved_model, "--text", "match goal", "--input", data,
                 "--id-col", "id")
    assert result.status == 0, result.err
    rows = list(csv.DictReader(io.StringIO(result.out)))
    assert list(rows[0]) == ["row", "id", "label", "probability"]
    assert [r["id"] for r in rows[:3]] == ["", "doc0", "doc1"]  # --text first, without an id
    # the same labels as without the id column
    plain = list(csv.DictReader(io.StringIO(cli("predict", saved_model, "--input", data).out)))
    assert [r["label"] for r in rows[1:]] == [r["label"] for r in plain]
    jsonl = write_jsonl(tmp_path / "d.jsonl", [{"text": "match goal", "n": 7},
                                               {"text": "recipe bread"}])
    rows = list(csv.DictReader(io.StringIO(cli("predict", saved_model, "--input", jsonl,
                                               "--id-col", "n").out)))
    assert [r["n"] for r in rows] == ["7", ""]  # a number as written; a record without: empty


def test_predict_id_column_errors(cli, saved_model, tmp_path) -> None:
    data = _labelled(tmp_path)
    cli("predict", saved_model, "--input", data, "--id-col", "nope").assert_user_error(
        "no column 'nope'", "--id-col")
    cli("predict", saved_model, "--input", data, "--id-col", "label").assert_user_error(
        "the predictions have a column of that name")
    cli("predict", saved_model, "--text", "x", "--id-col", "id").assert_user_error(
        "--id-col needs an --input table")
    jsonl = write_jsonl(tmp_path / "d.jsonl", [{"text": "match goal"}])
    cli("predict", saved_model, "--input", jsonl, "--id-col", "key").assert_user_error(
        "no record has the key 'key'")


def test_predict_reads_plain_lines_and_standard_input(cli, saved_model, tmp_path,
                                                      monkeypatch) -> None:
    lines = ["match goal team player", "recipe bread cheese soup", "computer software code"]
    plain = tmp_path / "docs.txt"
    plain.write_text("\n".join(lines) + "\n", encoding="utf-8")
    from_file = cli("predict", saved_model, "--input", plain)
    assert from_file.status == 0, from_file.err
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(plain.read_bytes())))
    from_stdin = cli("predict", saved_model, "--input", "-")
    assert from_stdin.status == 0, from_stdin.err
    from_texts = cli("predict", saved_model, *[w for line in lines for w in ("--text", line)])
    assert from_file.out == from_stdin.out == from_texts.out
    assert len(from_file.out.splitlines()) == 1 + len(lines)  # a header, a row a line

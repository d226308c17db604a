"""Scoring predictions against labels (:mod:`gfbgcn.text.predict.evaluate`): the metrics, the
labels a model does not know, the printed table and the evaluation directory."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest
from sklearn.metrics import f1_score

from gfbgcn.core.atomic import directory_kind
from gfbgcn.core.errors import OptionError
from gfbgcn.text.predict.evaluate import (
    evaluate,
    evaluation_table,
    metrics_record,
    predictions_csv,
    score_predictions,
    write_evaluation,
)
from gfbgcn.text.predict.inductive import Predictions

NAMES = ["a", "b", "c"]


def _single(predicted: list[str]) -> Predictions:
    probs = np.full((len(predicted), 3), 0.1)
    for i, label in enumerate(predicted):
        probs[i, NAMES.index(label)] = 0.8
    return Predictions(labels=predicted, probabilities=probs, label_names=NAMES,
                       no_known_words=np.zeros(len(predicted), dtype=bool))


def test_single_label_scores_with_an_unknown_label() -> None:
    true = ["a", "a", "b", "c", "z", "z"]
    ev = score_predictions(_single(["a", "b", "b", "c", "a", "c"]), true, ids=list("uvwxyq"))
    m = ev.metrics
    assert m["accuracy"] == pytest.approx(3 / 6)  # the two unknown-label documents are misses
    assert ev.unknown == {"z": 2} and ev.unknown_docs == 2
    assert ev.classes == ["a", "b", "c", "z"]
    # rows: the model's labels then the unknown one; columns: the model's labels only
    assert ev.confusion.tolist() == [[1, 1, 0], [0, 1, 0], [0, 0, 1], [1, 0, 1]]
    # a: precision 1/2 (one of its two predictions was a 'z' document), recall 1/2
    assert ev.per_class["precision"].tolist() == pytest.approx([0.5, 0.5, 0.5, 0.0])
    assert ev.per_class["recall"].tolist() == pytest.approx([0.5, 1.0, 1.0, 0.0])
    assert ev.per_class["support"].tolist() == [2, 1, 1, 2]
    f1 = [0.5, 2 / 3, 2 / 3, 0.0]
    assert ev.per_class["f1"].tolist() == pytest.approx(f1)
    assert m["macro_f1"] == pytest.approx(np.mean(f1))  # z is a class of the file: in the mean


def test_single_label_without_unknown_labels_matches_scikit_learn() -> None:
    true = ["a", "b", "c", "a", "b", "c", "a"]
    pred = ["a", "b", "a", "a", "c", "c", "b"]
    ev = score_predictions(_single(pred), true)
    assert ev.unknown == {} and ev.classes == NAMES
    assert ev.metrics["macro_f1"] == pytest.approx(f1_score(true, pred, average="macro"))
    assert ev.per_class["f1"].tolist() == pytest.approx(
        f1_score(true, pred, average=None, labels=NAMES).tolist())
    assert int(ev.confusion.sum()) == len(true) and int(np.trace(ev.confusion)) == 4


def test_multi_label_scores_at_the_model_threshold_with_an_unknown_label() -> None:
    probs = np.array([[0.9, 0.7, 0.1], [0.2, 0.6, 0.1], [0.1, 0.2, 0.3], [0.8, 0.1, 0.9]])
    pred = Predictions(labels=[["a", "b"], ["b"], [], ["a", "c"]], probabilities=probs,
                       label_names=NAMES, no_known_words=np.zeros(4, dtype=bool),
                       multi_label=True, threshold=0.5)
    ev = score_predictions(pred, ["a|b", "b;x", "", "a|c|zz"], label_sep="|")
    assert ev.multi_label and ev.confusion is None and ev.threshold == 0.5
    # "b;x" is one label with the separator "|": unknown, as is "zz"
    assert ev.unknown == {"b;x": 1, "zz": 1} and ev.unknown_docs == 2
    t = np.array([[1, 1, 0, 0, 0], [0, 0, 0, 1, 0], [0, 0, 0, 0, 0], [1, 0, 1, 0, 1]])
    p = np.array([[1, 1, 0, 0, 0], [0, 1, 0, 0, 0], [0, 0, 0, 0, 0], [1, 0, 1, 0, 0]])
    assert ev.metrics["micro_f1"] == pytest.approx(f1_score(t, p, average="micro"))
    assert ev.metrics["macro_f1"] == pytest.approx(f1_score(t, p, average="macro",
                                                            zero_division=0))
    assert ev.metrics["subset_accuracy"] == pytest.approx(2 / 4)
    assert ev.per_class["support"].tolist() == [2, 1, 1, 1, 1]


def test_the_table_reports_scores_unknown_labels_and_the_confusion_matrix() -> None:
    ev = score_predictions(_single(["a", "b", "b", "c", "a"]), ["a", "a", "b", "c", "z"])
    table = evaluation_table(ev)
    lines = table.splitlines()
    assert lines[0].startswith("5 documents, 3 classes: accuracy 0.6000 | macro precision")
    assert "1 document(s) have labels the model does not know, always wrong: 'z' (1)" in table
    header = next(line for line in lines if line.startswith("label"))
    row = next(line for line in lines if line.startswith("z (unknown)"))
    assert len(header) == len(row)  # aligned: numbers right-justified under their headers
    assert lines[-1].split() == ["z", "1", "0", "0"]  # the unknown label's confusion row


def test_predictions_csv_keeps_ids_and_marks_correct_rows() -> None:
    ev = score_predictions(_single(["a", "c"]), ["a", "b"], ids=["x1", "x2"])
    rows = list(csv.reader(io.StringIO(predictions_csv(ev, "doc_id"))))
    assert rows == [["row", "doc_id", "label", "predicted", "probability", "correct"],
                    ["0", "x1", "a", "a", "0.800000", "1"], ["1", "x2", "b", "c", "0.800000", "0"]]


def test_evaluate_calls_the_model_and_checks_lengths(model_dir) -> None:
    _, predictor = model_dir
    texts = ["w1 w2 w3 w4", "w10 w11 w12 w13"]
    labels = [predictor.label_names[0], predictor.label_names[-1]]
    ev = evaluate(predictor, texts, labels, batch_size=1)
    expected = predictor.predict(texts)
    assert ev.predictions.labels == expected.labels
    assert np.allclose(ev.predictions.probabilities, expected.probabilities)
    with pytest.raises(ValueError, match="same length"):
        evaluate(predictor, texts, labels[:1])


def test_write_evaluation_writes_whole_directories_of_its_kind(tmp_path) -> None:
    ev = score_predictions(_single(["a", "b", "b"]), ["a", "b", "q"], ids=["1", "2", "3"])
    out = tmp_path / "eval"
    written = write_evaluation(out, ev, provenance={"model": "m"}, id_column="id", draw=False)
    assert written == ["confusion.csv", "metrics.json", "per_class.csv", "predictions.csv"]
    assert directory_kind(out) == "evaluation"
    record = json.loads((out / "metrics.json").read_text(encoding="utf-8"))
    assert record == metrics_record(ev, {"model": "m"})
    assert record["unknown_labels"] == {"documents": 1, "labels": {"q": 1}}
    assert record["confusion_matrix"]["true"] == ["a", "b", "c", "q"]
    assert (out / "confusion.csv").read_text().splitlines()[0] == "true \\ predicted,a,b,c"
    # again, now with the figure: the earlier evaluation is replaced whole
    assert "confusion.png" in write_evaluation(out, ev, draw=True)
    assert (out / "confusion.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    with pytest.raises(OptionError, match="holds files gfbgcn did not write"):
        write_evaluation(mine, ev, draw=False)
    assert (mine / "notes.txt").read_text() == "keep me"

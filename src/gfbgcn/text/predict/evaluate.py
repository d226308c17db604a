"""Scoring a saved model on labelled documents (``gfbgcn evaluate``).

The model classifies the documents exactly as ``gfbgcn predict`` does (its ``predict``), and its
answers are compared with the labels of the file:

* **Single-label**: accuracy, macro precision/recall/F1 (:func:`gfbgcn.core.metrics.
  classification_metrics`), each class's precision, recall, F1 and support
  (:func:`gfbgcn.core.metrics.per_class_scores`) and the confusion matrix, rows the true labels
  and columns the predicted ones, both in the model's label order.
* **Multi-label**: micro/macro F1, micro precision/recall and subset accuracy
  (:func:`gfbgcn.text.corpus.labels.multilabel_metrics`) and each label's scores, at the
  threshold the model was saved with.

A label in the file that the model does not know can never be predicted: it is counted
(:attr:`Evaluation.unknown`) and scored as what it is, a class of the file that every document
of it gets wrong.  Single-label: such a document is a miss in the accuracy, the label is a class
of its own in the macro average (recall 0) and a row of its own below the model's rows of the
confusion matrix.  Multi-label: the label is a column of its own, true and never predicted.
The macro averages run over the classes in the file or predicted (scikit-learn's default set;
multi-label: every label, as in training).

:func:`write_evaluation` writes an ``--out`` directory as a whole (:mod:`gfbgcn.core.atomic`,
kind ``evaluation``): ``metrics.json``, ``per_class.csv``, ``confusion.csv`` (single-label),
``predictions.csv`` and, where matplotlib is installed, ``confusion.png``.
"""

from __future__ import annotations

import csv
import importlib
import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from gfbgcn.core.atomic import atomic_directory
from gfbgcn.core.io import atomic_write_json, atomic_write_text
from gfbgcn.core.metrics import classification_metrics, per_class_scores
from gfbgcn.text.corpus.labels import multilabel_metrics, split_labels
from gfbgcn.text.predict.inductive import Predictions

#: The files of an evaluation directory (``gfbgcn evaluate --out``).
METRICS, PER_CLASS, CONFUSION, PREDICTIONS, CONFUSION_PNG = (
    "metrics.json", "per_class.csv", "confusion.csv", "predictions.csv", "confusion.png")
#: Above this many columns the printed table leaves the confusion matrix to ``confusion.csv``.
PRINTED_CONFUSION_MAX = 20


class Predictor(Protocol):
    """What is scored: a loaded model (:func:`gfbgcn.text.predict.saved.load_model`)."""

    def predict(self, texts: Sequence[str], batch_size: int = ...) -> Predictions: ...


@dataclass
class Evaluation:
    """A model's answers on labelled documents, and how they compare.

    ``classes``: the rows of :attr:`per_class` (the model's labels, then the unknown ones);
    ``confusion``: ``[len(classes), len(label_names)]`` counts, true × predicted
    (single-label; ``None`` for multi-label); ``unknown``: each label the model does not know
    and the number of documents holding it; ``true``: each document's true label
    (multi-label: its list of labels)."""

    label_names: list[str]
    multi_label: bool
    threshold: float | None
    metrics: dict[str, Any]
    classes: list[str]
    per_class: dict[str, np.ndarray]
    confusion: np.ndarray | None
    unknown: dict[str, int]
    true: list[Any]
    predictions: Predictions
    ids: list[str] | None = None

    @property
    def num_docs(self) -> int:
        return len(self.true)

    @property
    def unknown_docs(self) -> int:
        """Documents with at least one label the model does not know."""
        known = set(self.label_names)
        if self.multi_label:
            return sum(1 for labels in self.true if any(lab not in known for lab in labels))
        return sum(1 for label in self.true if label not in known)


def evaluate(model: Predictor, texts: Sequence[str], labels: Sequence[str], *,
             label_sep: str | None = None, batch_size: int = 1024,
             ids: Sequence[str] | None = None) -> Evaluation:
    """Classify ``texts`` with ``model`` and score the answers against ``labels`` (multi-label
    models: fields joined by ``label_sep``, default ``|``); ``ids`` ride along to the
    predictions file."""
    if len(texts) != len(labels) or (ids is not None and len(ids) != len(texts)):
        raise ValueError("texts, labels and ids must have the same length")
    pred = model.predict(list(texts), batch_size=batch_size)
    return score_predictions(pred, labels, label_sep=label_sep, ids=ids)


def score_predictions(pred: Predictions, labels: Sequence[str], *, label_sep: str | None = None,
                      ids: Sequence[str] | None = None) -> Evaluation:
    """:func:`evaluate` of predictions already made (see the module docstring)."""
    if len(pred) != len(labels):
        raise ValueError(f"{len(pred)} predictions for {len(labels)} labels")
    names = list(pred.label_names)
    id_list = None if ids is None else list(ids)
    if pred.multi_label:
        return _multi_label(pred, names, split_labels(labels, label_sep or "|"), id_list)
    return _single_label(pred, names, [str(lab) for lab in labels], id_list)


def _unknown_labels(names: Sequence[str], seen: Sequence[str]) -> dict[str, int]:
    """The labels of ``seen`` outside ``names``, in order of first appearance, with counts."""
    known = set(names)
    unknown: dict[str, int] = {}
    for label in seen:
        if label not in known:
            unknown[label] = unknown.get(label, 0) + 1
    return unknown


def _single_label(pred: Predictions, names: list[str], true: list[str],
                  ids: list[str] | None) -> Evaluation:
    unknown = _unknown_labels(names, true)
    classes = names + list(unknown)  # an unknown label is a class of its own, never predicted
    index = {name: i for i, name in enumerate(classes)}
    y_true = np.array([index[label] for label in true], dtype=np.int64)
    y_pred = np.array([index[label] for label in pred.labels], dtype=np.int64)
    base = classification_metrics(y_true, y_pred, len(classes))
    confusion = np.asarray(base.pop("confusion_matrix"), dtype=np.int64)[:, :len(names)]
    scores = per_class_scores(y_true, y_pred, len(classes))
    metrics = {"documents": len(true), "multi_label": False, **base}
    return Evaluation(names, False, None, metrics, classes, scores, confusion, unknown, true,
                      pred, ids)


def _multi_label(pred: Predictions, names: list[str], true: list[list[str]],
                 ids: list[str] | None) -> Evaluation:
    unknown = _unknown_labels(names, [lab for labels in true for lab in labels])
    classes = names + list(unknown)  # an unknown label: a column true and never predicted
    index = {name: i for i, name in enumerate(classes)}
    t = np.zeros((len(true), len(classes)), dtype=np.int64)
    for row, labels in enumerate(true):
        t[row, [index[lab] for lab in labels]] = 1
    p = np.zeros_like(t)
    for row, labels in enumerate(pred.labels):
        p[row, [index[lab] for lab in labels]] = 1
    base = multilabel_metrics(t, p)
    metrics = {"documents": base.pop("num_docs"), "multi_label": True,
               "threshold": pred.threshold, **base}
    return Evaluation(names, True, pred.threshold, metrics, classes,
                      per_class_scores(t, p, len(classes)), None, unknown, true, pred, ids)


# ---------------------------------------------------------------------------------------------
# What is printed and written


def metrics_record(ev: Evaluation, provenance: dict[str, Any] | None = None) -> dict[str, Any]:
    """``metrics.json``: the summary, the unknown labels, each class's scores and (single-label)
    the confusion matrix with its row and column names; ``provenance`` (the model, the input,
    the columns) first."""
    record: dict[str, Any] = dict(provenance or {})
    record.update(ev.metrics)
    record["label_names"] = list(ev.label_names)
    record["unknown_labels"] = {"documents": ev.unknown_docs, "labels": dict(ev.unknown)}
    record["no_known_words"] = int(np.count_nonzero(ev.predictions.no_known_words))
    record["per_class"] = {
        name: {"precision": float(ev.per_class["precision"][i]),
               "recall": float(ev.per_class["recall"][i]), "f1": float(ev.per_class["f1"][i]),
               "support": int(ev.per_class["support"][i]), "known": i < len(ev.label_names)}
        for i, name in enumerate(ev.classes)}
    if ev.confusion is not None:
        record["confusion_matrix"] = {"true": list(ev.classes), "predicted": list(ev.label_names),
                                      "counts": ev.confusion.tolist()}
    return record


def _csv(rows: Sequence[Sequence[Any]]) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    return buf.getvalue()


def per_class_csv(ev: Evaluation) -> str:
    """``label, precision, recall, f1, support, known`` (known: 0 for a label the model does
    not know)."""
    s = ev.per_class
    return _csv([["label", "precision", "recall", "f1", "support", "known"]] + [
        [name, f"{s['precision'][i]:.6f}", f"{s['recall'][i]:.6f}", f"{s['f1'][i]:.6f}",
         int(s["support"][i]), int(i < len(ev.label_names))]
        for i, name in enumerate(ev.classes)])


def confusion_csv(ev: Evaluation) -> str:
    """The confusion matrix with a header: ``true \\ predicted`` then the model's labels, one
    row per true label (single-label)."""
    if ev.confusion is None:
        raise ValueError("a multi-label evaluation has no confusion matrix")
    return _csv([["true \\ predicted", *ev.label_names]]
                + [[name, *map(int, row)] for name, row in zip(ev.classes, ev.confusion)])


def predictions_csv(ev: Evaluation, id_column: str | None = None, label_sep: str = "|") -> str:
    """One row per document: ``row``, the id column (named ``id_column``) when there are ids,
    ``label`` (true), ``predicted``, ``probability`` (of the predicted label; multi-label:
    those of the predicted labels, joined) and ``correct`` (1/0; multi-label: the exact set)."""
    pred, names = ev.predictions, ev.label_names
    header = ["row", *([id_column or "id"] if ev.ids is not None else []), "label", "predicted",
              "probability", "correct"]
    rows: list[list[Any]] = [header]
    for i, true in enumerate(ev.true):
        ident = [ev.ids[i]] if ev.ids is not None else []
        probs = pred.probabilities[i]
        if ev.multi_label:
            chosen = list(pred.labels[i])
            shown = label_sep.join(f"{probs[names.index(lab)]:.6f}" for lab in chosen)
            correct = set(chosen) == set(true)
            rows.append([i, *ident, label_sep.join(true), label_sep.join(chosen), shown,
                         int(correct)])
        else:
            label = pred.labels[i]
            rows.append([i, *ident, true, label, f"{probs[names.index(label)]:.6f}",
                         int(label == true)])
    return _csv(rows)


def _aligned(rows: Sequence[Sequence[str]], right: Sequence[bool]) -> list[str]:
    """Rows as lines of columns padded to a common width (``right``: numbers, right-aligned)."""
    widths = [max(len(row[j]) for row in rows) for j in range(len(rows[0]))]
    return ["  ".join(cell.rjust(w) if r else cell.ljust(w)
                      for cell, w, r in zip(row, widths, right)).rstrip() for row in rows]


def evaluation_table(ev: Evaluation) -> str:
    """The printed report: the summary line, the unknown labels, each class's scores and
    (single-label, up to :data:`PRINTED_CONFUSION_MAX` classes) the confusion matrix."""
    m = ev.metrics
    lines = []
    if ev.multi_label:
        lines.append(f"{m['documents']} documents, {len(ev.label_names)} labels, threshold "
                     f"{ev.threshold:g}: micro F1 {m['micro_f1']:.4f} | macro F1 "
                     f"{m['macro_f1']:.4f} | subset accuracy {m['subset_accuracy']:.4f} | "
                     f"micro precision {m['micro_precision']:.4f} recall "
                     f"{m['micro_recall']:.4f}")
    else:
        lines.append(f"{m['documents']} documents, {len(ev.label_names)} classes: accuracy "
                     f"{m['accuracy']:.4f} | macro precision {m['macro_precision']:.4f} "
                     f"recall {m['macro_recall']:.4f} F1 {m['macro_f1']:.4f}")
    if ev.unknown:
        listed = ", ".join(f"{name!r} ({count})" for name, count in ev.unknown.items())
        lines.append(f"{ev.unknown_docs} document(s) have labels the model does not know, "
                     f"always wrong: {listed}")
    s = ev.per_class
    rows = [["label", "precision", "recall", "f1", "support"]] + [
        [name + ("" if i < len(ev.label_names) else " (unknown)"), f"{s['precision'][i]:.4f}",
         f"{s['recall'][i]:.4f}", f"{s['f1'][i]:.4f}", str(int(s["support"][i]))]
        for i, name in enumerate(ev.classes)]
    lines += ["", *_aligned(rows, [False, True, True, True, True])]
    if ev.confusion is not None:
        lines.append("")
        if len(ev.label_names) <= PRINTED_CONFUSION_MAX:
            lines.append("confusion matrix (rows: true label, columns: predicted)")
            grid = [["", *ev.label_names]] + [[name, *map(str, row)]
                                              for name, row in zip(ev.classes, ev.confusion)]
            lines += _aligned(grid, [False] + [True] * len(ev.label_names))
        else:
            lines.append(f"confusion matrix: {len(ev.classes)} x {len(ev.label_names)}, not "
                         f"printed over {PRINTED_CONFUSION_MAX} classes (--out writes "
                         f"{CONFUSION})")
    return "\n".join(lines) + "\n"


def can_draw() -> bool:
    """Whether matplotlib (the ``figures`` extra) is installed, so ``confusion.png`` is drawn
    (imported, not just looked up: it is about to draw)."""
    try:
        importlib.import_module("matplotlib")
    except ImportError:
        return False
    return True


def write_evaluation(out: str | Path, ev: Evaluation, *, provenance: dict[str, Any] | None = None,
                     id_column: str | None = None, label_sep: str = "|",
                     draw: bool | None = None) -> list[str]:
    """Write ``ev`` into directory ``out`` as a whole (:mod:`gfbgcn.core.atomic`, kind
    ``evaluation``; a directory of anything else is refused, never replaced).  ``draw``: also
    ``confusion.png`` (default: where matplotlib is installed; single-label).  Returns the
    names of the files written."""
    draw = can_draw() if draw is None else draw
    files = {METRICS: None, PER_CLASS: per_class_csv(ev),
             PREDICTIONS: predictions_csv(ev, id_column, label_sep)}
    if ev.confusion is not None:
        files[CONFUSION] = confusion_csv(ev)
    with atomic_directory(out, "evaluation", "out") as staging:
        atomic_write_json(staging / METRICS, metrics_record(ev, provenance))
        for name, text in files.items():
            if text is not None:
                atomic_write_text(staging / name, text)
        if draw and ev.confusion is not None:
            from gfbgcn.text.predict.confusion import draw_confusion

            rows = [name if i < len(ev.label_names) else f"{name} (unknown)"
                    for i, name in enumerate(ev.classes)]
            draw_confusion(ev.confusion, rows, ev.label_names, staging / CONFUSION_PNG,
                           title=f"{ev.num_docs} documents, accuracy "
                                 f"{ev.metrics['accuracy']:.4f}")
    return sorted(files) + ([CONFUSION_PNG] if draw and ev.confusion is not None else [])

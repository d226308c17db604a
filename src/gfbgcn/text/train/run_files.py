"""A training run's files: `config.json`, `history.csv`, `metrics.json` and `predictions.csv`
(`train --out`), and its figures where matplotlib is installed (the ``figures`` extra):
`curves.png`, and `confusion.png` (single-label) or `label_f1.png` (multi-label, when
``metrics.json`` holds ``test_per_label``), :mod:`gfbgcn.core.figures.run`.

A run's figures are drawn from what its other files hold (:func:`figure_inputs`), in the same
atomic write as they are (:func:`write_run`), or later into a run directory written without
them (:func:`draw_run`).  A figure that fails to draw is not worth a trained result: the run is
written without its figures and a warning says why.
"""

from __future__ import annotations

import csv
import io
import json
import warnings
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from gfbgcn.core.atomic import atomic_directory, directory_kind
from gfbgcn.core.errors import UserError
from gfbgcn.core.figures.canvas import can_draw
from gfbgcn.core.figures.run import RUN_FIGURES, draw_run_figures
from gfbgcn.core.io import atomic_write_json, atomic_write_text
from gfbgcn.text.graph.text_graph import TextGraph
from gfbgcn.text.train.checks import json_safe
from gfbgcn.text.train.config import TrainResult

#: ``metrics.json``'s ``test_note`` of a run without a labelled test document.
NO_TEST_NOTE = ("no labelled test documents: no test metrics (predictions.csv lists any "
                "unlabelled documents' predictions, without a true label)")


def history_csv(history: list[dict[str, float]]) -> str:
    buf = io.StringIO()
    if history:
        writer = csv.DictWriter(buf, fieldnames=list(history[0]))
        writer.writeheader()
        writer.writerows(history)
    return buf.getvalue()


def predictions_csv(graph: TextGraph, probabilities: np.ndarray,
                    label_names: Sequence[str] | None = None, threshold: float | None = None,
                    baseline: np.ndarray | None = None,
                    baseline_threshold: float | None = None) -> str:
    """The test documents' predictions, one row each: ``doc`` (row of the corpus), ``label``
    (the true one; empty for a document without a label, :attr:`TextGraph.unlabeled`),
    ``predicted``, ``probability`` (of the predicted class) and, when a baseline was fitted,
    ``baseline_predicted`` -- what a paired test (McNemar) needs.

    Args:
        graph: the run's graph (labels, label names, which documents are test).
        probabilities: ``[num_docs, C]`` outputs of the reported predictor.
        label_names: the columns' names when they differ from the graph's classes
            (multi-label: one per label; ``predicted`` then joins the labels at or above
            ``threshold`` with ``|`` and ``probability`` is empty).
        threshold: the multi-label decision threshold.
        baseline: ``[num_docs, C]`` probabilities of the linear baseline, or None.
        baseline_threshold: a multi-label baseline's decision threshold (``baseline_predicted``
            then joins its labels at or above it with ``|``).
    """
    names = list(graph.label_names if label_names is None else label_names)
    test = np.flatnonzero(~np.asarray(graph.is_train))
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["doc", "label", "predicted", "probability"]
                    + (["baseline_predicted"] if baseline is not None else []))
    probs = np.asarray(probabilities)
    unlabeled = np.zeros(graph.num_docs, bool) if graph.unlabeled is None else graph.unlabeled
    for i in test:
        true = "" if unlabeled[i] else graph.label_names[int(graph.labels[i])]
        if threshold is not None:
            row = [int(i), true, "|".join(n for n, p in zip(names, probs[i]) if p >= threshold),
                   ""]
        else:
            j = int(probs[i].argmax())
            row = [int(i), true, names[j], f"{probs[i, j]:.6f}"]
        if baseline is not None and baseline_threshold is not None:
            row.append("|".join(n for n, p in zip(names, baseline[i]) if p >= baseline_threshold))
        elif baseline is not None:
            row.append(names[int(baseline[i].argmax())])
        writer.writerow(row)
    return buf.getvalue()


def write_run(out_dir: str | Path, result: TrainResult, graph: TextGraph,
              label_names: Sequence[str] | None = None,
              extra_metrics: dict[str, Any] | None = None,
              extra_files: dict[str, str] | None = None,
              probabilities: np.ndarray | None = None,
              baseline: np.ndarray | None = None,
              baseline_threshold: float | None = None,
              provenance: dict[str, Any] | None = None, draw: bool | None = None) -> Path:
    """``config.json`` (seed, settings, versions), ``history.csv``, ``metrics.json`` and
    ``predictions.csv`` (:func:`predictions_csv`).

    ``label_names``: the output columns' names when they differ from the graph's classes
    (multi-label training: one column per individual label, not per label combination).
    The directory is written as a whole (:mod:`gfbgcn.core.atomic`): all files or none,
    and an earlier run there stays intact until the new one is complete.
    ``extra_metrics`` are merged into ``metrics.json``; ``extra_files`` (name -> text, e.g.
    ``auto.csv``) are written into the same directory.  ``probabilities``: the reported
    predictor's ``[num_docs, C]`` outputs when they are not ``result``'s (a combination);
    ``baseline``: the linear baseline's, for the ``baseline_predicted`` column
    (``baseline_threshold``: a multi-label baseline's threshold).
    ``provenance`` (the command line, the input file and its columns:
    ``gfbgcn.cli.options.run_provenance``) becomes ``config.json``'s ``run`` entry, so a run
    directory says what made it.
    ``draw``: also draw the run's figures (default: where matplotlib is installed; ``True``
    without it raises :class:`~gfbgcn.core.errors.MissingExtraError` before anything is
    written); one that fails to draw leaves the run without figures, with a warning.
    """
    probs = result.probabilities if probabilities is None else probabilities
    draw = can_draw() if draw is None else draw
    if draw:
        from gfbgcn.core.extras import require

        require("matplotlib", "figures", "drawing the run's figures")  # before any writing
    with atomic_directory(out_dir, "run", "out") as staging:
        metrics = _write_run_files(staging, result, graph, label_names, extra_metrics,
                                   provenance)
        atomic_write_text(staging / "predictions.csv",
                          predictions_csv(graph, probs, label_names, result.threshold, baseline,
                                          baseline_threshold))
        for name, text in (extra_files or {}).items():
            atomic_write_text(staging / name, text)
        if draw:
            _draw_or_warn(staging, Path(out_dir), result.history, metrics,
                          run_title(result.config.model, graph.corpus_name))
    return Path(out_dir)


def run_title(model: str, dataset: str) -> str:
    """What the figures of a run say above them: ``gfb-max on r8``."""
    return f"{model} on {dataset}" if dataset else model


def figure_inputs(metrics: dict[str, Any]) -> dict[str, Any]:
    """The arguments of :func:`~gfbgcn.core.figures.run.draw_run_figures` that a run's
    ``metrics.json`` holds: its label names, best epoch, test confusion matrix (single-label;
    that of the reported predictor, a combination's under ``auto``, which ``predictor``
    names), and each label's test F1 (multi-label: ``test_per_label``)."""
    test = metrics.get("test") or {}
    confusion = test.get("confusion_matrix")
    per_label = metrics.get("test_per_label")
    return {"label_names": [str(n) for n in metrics["label_names"]],
            "best_epoch": metrics.get("best_epoch"),
            "confusion": None if confusion is None else np.asarray(confusion, dtype=np.int64),
            "label_f1": None if per_label is None else (per_label["f1"], per_label["support"]),
            "predictor": auto_choice(metrics.get("auto"))}


def auto_choice(chosen: dict[str, Any] | None) -> str:
    """``auto``'s chosen predictor in words (``metrics.json``'s ``auto``), whose test documents
    the confusion matrix counts; ``""`` for a run without ``auto``."""
    if not chosen:
        return ""
    if chosen.get("predictor") == "linear":
        return f"auto chose linear {chosen.get('linear', '')}".rstrip()
    if chosen.get("predictor") == "graph+linear":
        return f"auto chose {chosen.get('model')} + linear (graph weight {chosen['weight']:.2f})"
    return f"auto chose {chosen.get('model')}"


def _draw_or_warn(staging: Path, out: Path, history: list[dict[str, float]],
                  metrics: dict[str, Any], title: str) -> list[str]:
    """The run's figures drawn into ``staging``; on a failure, none of them (the run stays
    whole without figures) and a warning naming ``out`` and the reason.  Only ``Exception``
    is caught: an interrupt still abandons the whole write."""
    try:
        return draw_run_figures(staging, history, title=title, **figure_inputs(metrics))
    except Exception as err:  # a figure is never worth the trained result
        for name in RUN_FIGURES:
            (staging / name).unlink(missing_ok=True)
        warnings.warn(f"{out}: written without its figures: drawing them failed "
                      f"({type(err).__name__}: {err})", stacklevel=3)
        return []


def read_history(path: str | Path) -> list[dict[str, str]]:
    """The per-epoch entries of a ``history.csv`` (values as written, strings)."""
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def draw_run(run_dir: str | Path, directory: str | Path | None = None) -> list[Path]:
    """Draw the figures of the run directory ``run_dir`` (``train --out``, written with or
    without them) from its ``history.csv`` and ``metrics.json`` into ``directory`` (default:
    ``run_dir`` itself, each file written atomically); the files written.  Needs matplotlib
    (the ``figures`` extra); a directory that is not a run is a
    :class:`~gfbgcn.core.errors.UserError`."""
    run_dir = Path(run_dir)
    if directory_kind(run_dir) != "run":
        raise UserError(f"{run_dir}: not a run directory (written by gfbgcn train --out)")
    try:
        history = read_history(run_dir / "history.csv")
        metrics = json.loads((run_dir / "metrics.json").read_text(encoding="utf-8"))
        config = json.loads((run_dir / "config.json").read_text(encoding="utf-8"))
        title = run_title(str(config["train"]["model"]), str(config.get("dataset") or ""))
        inputs = figure_inputs(metrics)
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise UserError(f"{run_dir}: cannot read the run ({type(err).__name__}: {err})"
                        ) from None
    target = run_dir if directory is None else Path(directory)
    target.mkdir(parents=True, exist_ok=True)
    names = draw_run_figures(target, history, title=title, **inputs)
    return [target / name for name in names]


def _write_run_files(out: Path, result: TrainResult, graph: TextGraph,
                     label_names: Sequence[str] | None,
                     extra_metrics: dict[str, Any] | None = None,
                     provenance: dict[str, Any] | None = None) -> dict[str, Any]:
    """``config.json``, ``history.csv`` and ``metrics.json`` into ``out``; the metrics
    written."""
    record = json_safe(result.record())  # strict JSON: no NaN
    atomic_write_json(
        out / "config.json",
        {
            "train": record["config"],
            "graph": {"key": graph.key, **asdict(graph.config), "tokenizer": graph.tokenizer},
            # how the early-stopping split was drawn from the training documents
            "validation_split": "stratified" if graph.stratify_validation else "random",
            "dataset": graph.corpus_name,
            "device": record["device"],
            "versions": record["versions"],
            "machine": record["machine"],
            **({"run": provenance} if provenance else {}),
        },
    )
    atomic_write_text(out / "history.csv", history_csv(result.history))
    metrics = {k: record[k] for k in ("test", "val", "best_epoch", "epochs_run",
                                      "seconds_per_epoch", "train_seconds", "peak_rss_mib",
                                      "lambda", "device") if k in record}
    # the labelled test documents scored; with none, "test" is null and a line says why
    metrics["test_documents"] = len(graph.labelled_test())
    if record["test"] is None:
        metrics["test_note"] = NO_TEST_NOTE
    metrics["label_names"] = list(graph.label_names if label_names is None else label_names)
    metrics.update(extra_metrics or {})  # e.g. the baseline beside an own-corpus result
    atomic_write_json(out / "metrics.json", metrics)
    return metrics

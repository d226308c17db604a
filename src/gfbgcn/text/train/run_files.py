"""A training run's files: `config.json`, `history.csv`, `metrics.json` and `predictions.csv`
(`train --out`)."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from gfbgcn.core.atomic import atomic_directory
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
              provenance: dict[str, Any] | None = None) -> Path:
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
    """
    probs = result.probabilities if probabilities is None else probabilities
    with atomic_directory(out_dir, "run", "out") as staging:
        _write_run_files(staging, result, graph, label_names, extra_metrics, provenance)
        atomic_write_text(staging / "predictions.csv",
                          predictions_csv(graph, probs, label_names, result.threshold, baseline,
                                          baseline_threshold))
        for name, text in (extra_files or {}).items():
            atomic_write_text(staging / name, text)
    return Path(out_dir)


def _write_run_files(out: Path, result: TrainResult, graph: TextGraph,
                     label_names: Sequence[str] | None,
                     extra_metrics: dict[str, Any] | None = None,
                     provenance: dict[str, Any] | None = None) -> Path:
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
    return out

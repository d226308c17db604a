"""A training run's files: `config.json`, `history.csv`, `metrics.json` (`train --out`)."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from gfbgcn.core.atomic import atomic_directory
from gfbgcn.core.io import atomic_write_json, atomic_write_text
from gfbgcn.text.graph.text_graph import TextGraph
from gfbgcn.text.train.checks import json_safe
from gfbgcn.text.train.config import TrainResult


def history_csv(history: list[dict[str, float]]) -> str:
    buf = io.StringIO()
    if history:
        writer = csv.DictWriter(buf, fieldnames=list(history[0]))
        writer.writeheader()
        writer.writerows(history)
    return buf.getvalue()


def write_run(out_dir: str | Path, result: TrainResult, graph: TextGraph,
              label_names: Sequence[str] | None = None,
              extra_metrics: dict[str, Any] | None = None,
              extra_files: dict[str, str] | None = None,
              provenance: dict[str, Any] | None = None) -> Path:
    """``config.json`` (seed, settings, versions), ``history.csv`` and ``metrics.json``.

    ``label_names``: the output columns' names when they differ from the graph's classes
    (multi-label training: one column per individual label, not per label combination).
    The directory is written as a whole (:mod:`gfbgcn.core.atomic`): all three files or none,
    and an earlier run there stays intact until the new one is complete.
    ``extra_metrics`` are merged into ``metrics.json``; ``extra_files`` (name -> text, e.g.
    ``auto.csv``) are written into the same directory.  ``provenance`` (the command line, the
    input file and its columns: ``gfbgcn.cli.options.run_provenance``) becomes ``config.json``'s
    ``run`` entry, so a run directory says what made it.
    """
    with atomic_directory(out_dir, "run", "--out") as staging:
        _write_run_files(staging, result, graph, label_names, extra_metrics, provenance)
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
    metrics["label_names"] = list(graph.label_names if label_names is None else label_names)
    metrics.update(extra_metrics or {})  # e.g. the baseline beside an own-corpus result
    atomic_write_json(out / "metrics.json", metrics)
    return out

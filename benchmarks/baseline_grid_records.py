"""Every grid point of the built-in n-gram baseline, on the validation documents of the
searches recorded by ``benchmarks/vs_linear.py``: what ``benchmarks/selection_study.py``
needs to choose the baseline's classifier on half of them.

A recorded search (``*_auto.json`` with its ``*_auto_candidates.npz``) keeps the baseline's
validation probabilities of the one grid point the search chose, with the temperature it
chose; both were chosen on all the validation documents.  This script fits the baseline again
as the search did (:func:`gfbgcn.text.linear.baseline.fit_baseline`'s steps on the split of
:func:`~gfbgcn.text.linear.baseline.graph_split`): the corpus as ``vs_linear.py`` loads it,
the graph of the search's first setting (stage 1's first: stop words ``english``, ``min_freq``
5, window 20; only its split is used, which is the same for every setting), the n-gram
vocabulary and IDF of the training and validation texts, and every point of
:func:`~gfbgcn.text.linear.grid.grid` fitted on the training documents alone.  It stores, per
point, the validation documents' decision scores (before the temperature) in the record's
validation order, as float32, in ``*_auto_baseline_grid.npz`` beside the record:

* ``val_scores`` ``[P, V, C]``: point ``p``'s scores ``x @ coef.T + intercept``;
* ``kinds``, ``params``, ``values``: the points, in the grid's order;
* ``val_labels`` ``[V]``: the validation classes (equal to the record's);
* ``chosen``, ``temperature``: the point and temperature chosen on all the validation
  documents by the baseline's own rule (``selection_study.choose_point``, which the study
  applies to half of them);
* ``check_max_abs_diff``: the largest difference between that choice's probabilities (from the
  float64 scores) and the record's ``linear_val_proba``.

A file is written only when the re-choice on all validation documents reproduces the record's
probabilities to :data:`TOLERANCE` and its validation labels exactly: that shows the split and
the fits are the search's.  No refit on the validation documents, no test document is counted
or scored, and no test label is used.

    python benchmarks/baseline_grid_records.py --records docs/results/raw/vs-linear --threads 1
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from _candidates import baseline_val_proba

ROOT = Path(__file__).resolve().parent.parent
#: The largest difference from the record's probabilities that counts as the same fit.
TOLERANCE = 1e-9
SUFFIX = "_baseline_grid.npz"


def search_split(dataset: str, seed: int) -> tuple[Any, Any, dict[str, np.ndarray]]:
    """``(corpus, graph, split)`` of the search ``vs_linear.py`` ran on ``dataset`` with
    ``seed``: its corpus, its first graph (stage 1's first setting) and the split of
    :func:`~gfbgcn.text.linear.baseline.graph_split` with the default validation ratio."""
    from gfbgcn.text.graph.text_graph import GraphConfig, build_text_graph
    from gfbgcn.text.linear.baseline import graph_split
    from gfbgcn.text.params import default_tokenizer
    from gfbgcn.text.search.auto import stage1_settings
    from gfbgcn.text.tokenize.registry import make_tokenizer
    from gfbgcn.text.train.config import TrainConfig
    from vs_linear import EXTRA, load_corpus

    corpus = load_corpus(dataset)
    first = stage1_settings()[0]
    config = GraphConfig(window=first.window, min_freq=first.min_freq,
                         stop_words=first.stop_words, cooccurrence="window")
    tokenizer = make_tokenizer(default_tokenizer(benchmark=dataset not in EXTRA))
    graph = build_text_graph(corpus, config, tokenizer)  # the cache serves the other seeds
    return corpus, graph, graph_split(graph, TrainConfig(seed=seed).val_ratio, seed)


def ngram_rows(texts: list[str], fit_idx: np.ndarray, workers: int | None = None):
    """``[len(fit_idx), V]`` TF-IDF rows of the documents ``fit_idx`` (training, then
    validation), with :func:`~gfbgcn.text.linear.baseline.fit_baseline`'s features: the
    vocabulary and IDF of those texts."""
    from gfbgcn.text.linear.baseline import NgramFeatures
    from gfbgcn.text.linear.ngrams import needs_hashing

    hashed = needs_hashing(texts, fit_idx)
    ngrams, counts = NgramFeatures.fit([texts[i] for i in fit_idx], hashed, workers)
    return ngrams.transform_counts(counts)


def grid_scores(texts: list[str], labels: np.ndarray, num_classes: int, train: np.ndarray,
                val: np.ndarray, seed: int, workers: int | None = None
                ) -> tuple[list, np.ndarray]:
    """``(points, scores [P, len(val), C])``: every grid point fitted on the training documents
    ``train`` and scored on ``val``, with :func:`~gfbgcn.text.linear.baseline.fit_baseline`'s
    features (vocabulary and IDF of the texts of ``train`` and ``val``) and solvers (no class
    weights, as ``vs_linear.py``'s searches)."""
    from gfbgcn.text.linear.baseline import fit_point, grid, linear_scores
    from gfbgcn.text.linear.grid import evaluate_grid
    from gfbgcn.text.linear.ngrams import needs_hashing

    fit_idx = np.concatenate([train, val])
    x = ngram_rows(texts, fit_idx, workers)
    n = len(train)
    points = grid(needs_hashing(texts, fit_idx), num_classes)

    def evaluate(point) -> np.ndarray:
        coef, intercept = fit_point(x[:n], labels[train], num_classes, point, seed, None)
        return linear_scores(x[n:], coef, intercept)

    return points, np.stack(evaluate_grid(points, evaluate))


def one(record: Path, threads: int) -> dict[str, float]:
    """Write ``record``'s grid file (module docstring); its figures for the log."""
    start = time.perf_counter()
    rec = json.loads(record.read_text(encoding="utf-8"))
    arrays = np.load(record.with_name(record.stem + "_candidates.npz"))
    from selection_study import choose_point, point_proba

    corpus, graph, split = search_split(rec["dataset"], int(rec["seed"]))
    labels = np.asarray(graph.labels)
    y_val = labels[split["val"]]
    if not np.array_equal(y_val, arrays["val_labels"]):
        raise SystemExit(f"{record.name}: the validation documents differ from the record's")
    points, scores = grid_scores(list(corpus.texts), labels, len(graph.label_names),
                                 split["train"], split["val"], int(rec["seed"]), threads)
    chosen, t = choose_point(scores, y_val)
    diff = float(np.abs(point_proba(scores, chosen, t) - baseline_val_proba(arrays)).max())
    if diff > TOLERANCE:
        raise SystemExit(f"{record.name}: the re-chosen baseline ({points[chosen]}, T={t:g}) "
                         f"is {diff:.3g} from the record's validation probabilities")
    out = record.with_name(record.stem + SUFFIX)
    tmp = out.with_name(out.name + ".tmp.npz")
    np.savez_compressed(tmp, val_scores=scores.astype(np.float32), val_labels=y_val,
                        kinds=np.array([p.kind for p in points]),
                        params=np.array([p.param for p in points]),
                        values=np.array([p.value for p in points]),
                        chosen=np.int64(chosen), temperature=np.float64(t),
                        check_max_abs_diff=np.float64(diff))
    tmp.replace(out)
    return {"points": len(points), "chosen": chosen, "temperature": t, "diff": diff,
            "bytes": out.stat().st_size, "seconds": time.perf_counter() - start}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=Path, default=ROOT / "docs/results/raw/vs-linear")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--datasets", nargs="*", help="only these corpora (default: all)")
    parser.add_argument("--force", action="store_true", help="rewrite existing grid files")
    args = parser.parse_args(argv)
    import torch

    torch.set_num_threads(args.threads)
    records = sorted(p for p in args.records.glob("*_auto.json")
                     if p.with_name(p.stem + "_candidates.npz").is_file())
    for record in records:
        dataset = record.stem.rsplit("_seed", 1)[0]
        if args.datasets and dataset not in args.datasets:
            continue
        if record.with_name(record.stem + SUFFIX).is_file() and not args.force:
            continue
        r = one(record, args.threads)
        print(f"{record.stem}: {r['points']} points, chosen {r['chosen']} (T={r['temperature']:g}"
              f"), max |p - record| {r['diff']:.2g}, {r['bytes'] / 1024:.0f} KiB, "
              f"{r['seconds']:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

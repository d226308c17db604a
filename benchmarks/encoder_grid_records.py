"""Every grid point of the two encoder linear candidates, on the validation documents of the
``--auto --encoder`` searches recorded by ``benchmarks/vs_linear.py``: what
``benchmarks/selection_study_encoder.py`` needs to choose each linear candidate's classifier
on half of them, as ``baseline_grid_records.py`` does for the n-gram baseline.

A recorded search with an encoder (``*_auto-encoder.json`` with its ``_candidates.npz``) keeps
the validation probabilities of its three linear candidates, each at the grid point and
temperature the search chose on *all* validation documents.  A replay that keeps them flatters
the linear candidates (the second study's first replay did the same for the baseline, and
decided on it for the baseline always; ``selection-rules.md``).  This script fits the two
encoder candidates again as the search did (:mod:`gfbgcn.text.linear.encoder`), on the split
of ``baseline_grid_records.search_split`` (the same as the search without an encoder of the
same seed), with the corpus's embeddings read from the embedding cache that the search filled:

* the encoder head: every point of :func:`~gfbgcn.text.linear.encoder.head_grid` on the
  embeddings;
* the n-gram baseline with the embeddings: every point of
  :func:`~gfbgcn.text.linear.encoder.stacked_grid` on ``[TF-IDF | s * embedding]``, the TF-IDF
  of ``baseline_grid_records.grid_scores`` (vocabulary and IDF of the training and validation
  texts).

Each point is fitted on the training documents alone and scored on the validation documents
(scores before the temperature, float32), in ``*_auto-encoder_linears_grid.npz`` beside the
record: ``head_scores`` ``[P_h, V, C]``, ``stacked_scores`` ``[P_s, V, C]``, ``val_labels``,
and per candidate the point and temperature chosen on all validation documents and the largest
difference of that choice's probabilities from the record's.  The n-gram baseline's grid is
the search without an encoder's (``*_auto_baseline_grid.npz`` of the same corpus and seed),
checked against this record's probabilities.  A file is written only when the two refitted
candidates, re-chosen on all validation documents, reproduce the record's probabilities to
:data:`TOLERANCE`, and the n-gram baseline (from float32 scores) to
:data:`FLOAT32_TOLERANCE`.  No test document is scored and no test label is read.

    python benchmarks/encoder_grid_records.py --records docs/results/raw/vs-linear \\
        --encoder ../shared/models/all-MiniLM-L6-v2 --threads 1
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from baseline_grid_records import ROOT, SUFFIX, TOLERANCE, ngram_rows, search_split

#: The grid file of a search with an encoder, beside its record.
ENCODER_SUFFIX = "_linears_grid.npz"
#: The n-gram baseline's grid file keeps float32 scores: its re-choice is checked to this
#: (and must be the point that file says was chosen from the float64 scores).
FLOAT32_TOLERANCE = 1e-4


def point_scores(rows_of, points, labels: np.ndarray, num_classes: int, n_train: int,
                 seed: int) -> np.ndarray:
    """``[P, n_val, C]``: each point fitted on the first ``n_train`` rows of ``rows_of(point)``
    and scored on the others."""
    from gfbgcn.text.linear.baseline import linear_scores
    from gfbgcn.text.linear.grid import evaluate_grid, fit_point

    def evaluate(point) -> np.ndarray:
        x = rows_of(point)
        coef, intercept = fit_point(x[:n_train], labels[:n_train], num_classes, point, seed,
                                    None)
        return linear_scores(x[n_train:], coef, intercept)

    return np.stack(evaluate_grid(points, evaluate))


def rechosen_diff(scores: np.ndarray, y: np.ndarray, recorded: np.ndarray
                  ) -> tuple[int, float, float]:
    """``(point, temperature, largest |difference| from recorded)`` of the choice on all
    validation documents (``selection_study.choose_point``)."""
    from selection_study import choose_point, point_proba

    point, t = choose_point(scores, y)
    return point, t, float(np.abs(point_proba(scores, point, t) - recorded).max())


def one(record: Path, encoder: str, threads: int) -> dict[str, float]:
    """Write ``record``'s grid file (module docstring); its figures for the log."""
    from gfbgcn.text.linear.baseline import stack_features
    from gfbgcn.text.linear.encoder import head_grid, stacked_grid
    from vs_linear import corpus_embeddings

    start = time.perf_counter()
    rec = json.loads(record.read_text(encoding="utf-8"))
    arrays = np.load(record.with_name(record.stem + "_candidates.npz"))
    recorded = np.asarray(arrays["linears_val_proba"], dtype=np.float64)
    dataset, seed = rec["dataset"], int(rec["seed"])
    ngram_file = record.with_name(f"{dataset}_seed{seed}_auto{SUFFIX}")
    if not ngram_file.is_file():
        raise SystemExit(f"{record.name}: no {ngram_file.name} (baseline_grid_records.py)")
    ngram_grid = np.load(ngram_file)
    ngram = ngram_grid["val_scores"].astype(np.float64)
    corpus, graph, split = search_split(dataset, seed)
    labels = np.asarray(graph.labels)
    train, val = split["train"], split["val"]
    y = labels[val]
    if not np.array_equal(y, arrays["val_labels"]):
        raise SystemExit(f"{record.name}: the validation documents differ from the record's")
    fit = np.concatenate([train, val])
    emb = corpus_embeddings(corpus, encoder).embeddings[fit]
    num_classes, n = len(graph.label_names), len(train)
    head = point_scores(lambda p: stack_features(None, emb, 1.0), head_grid(), labels[fit],
                        num_classes, n, seed)
    x = ngram_rows(list(corpus.texts), fit, threads)
    stacked = point_scores(lambda p: stack_features(x, emb, p.scale), stacked_grid(),
                           labels[fit], num_classes, n, seed)
    checks = [rechosen_diff(s, y, r) for s, r in zip((ngram, head, stacked), recorded)]
    worst = max(c[2] for c in checks)
    if (checks[0][2] > FLOAT32_TOLERANCE or checks[0][0] != int(ngram_grid["chosen"])
            or max(checks[1][2], checks[2][2]) > TOLERANCE):
        raise SystemExit(f"{record.name}: a re-chosen linear candidate is {worst:.3g} from the "
                         f"record's validation probabilities ({checks})")
    out = record.with_name(record.stem + ENCODER_SUFFIX)
    tmp = out.with_name(out.name + ".tmp.npz")
    np.savez_compressed(tmp, head_scores=head.astype(np.float32),
                        stacked_scores=stacked.astype(np.float32), val_labels=y,
                        chosen=np.array([c[0] for c in checks]),
                        temperature=np.array([c[1] for c in checks]),
                        check_max_abs_diff=np.array([c[2] for c in checks]))
    tmp.replace(out)
    return {"diff": worst, "bytes": out.stat().st_size, "seconds": time.perf_counter() - start}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=Path, default=ROOT / "docs/results/raw/vs-linear")
    parser.add_argument("--encoder", required=True, help="the searches' encoder (a directory)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--datasets", nargs="*", help="only these corpora (default: all)")
    parser.add_argument("--seeds", nargs="*", type=int, help="only these seeds (default: all)")
    parser.add_argument("--force", action="store_true", help="rewrite existing grid files")
    args = parser.parse_args(argv)
    import torch

    torch.set_num_threads(args.threads)
    for record in sorted(args.records.glob("*_auto-encoder.json")):
        dataset = record.stem.rsplit("_seed", 1)[0]
        if args.datasets and dataset not in args.datasets:
            continue
        if args.seeds and int(record.stem.rsplit("_seed", 1)[1].split("_")[0]) not in args.seeds:
            continue
        if record.with_name(record.stem + ENCODER_SUFFIX).is_file() and not args.force:
            continue
        r = one(record, args.encoder, args.threads)
        print(f"{record.stem}: max |p - record| {r['diff']:.2g}, {r['bytes'] / 1024:.0f} KiB, "
              f"{r['seconds']:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

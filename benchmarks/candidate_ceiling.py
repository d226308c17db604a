"""How far could any choice among ``--auto --encoder``'s candidates go?  A ceiling, not a rule.

For every search recorded by ``benchmarks/vs_linear.py --parts auto-encoder`` this reads each
candidate's test predictions (``*_auto-encoder_candidates.npz``) and prints, per corpus and
as the mean over seeds, the test accuracy minus that of the best of six baselines (picked per
seed on validation, as ``vs-linear.md`` does) of: the candidate the search chose, its built-in
baseline with the encoder ((f) inside the search), and the candidate with the best *test*
accuracy.  The last picks on the test documents, so no rule can reach it; when it stays below a
target, a better choice among these candidates cannot meet that target::

    python benchmarks/candidate_ceiling.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

RAW = Path(__file__).resolve().parent.parent / "docs" / "results" / "raw" / "vs-linear"
CORPORA = ("customer-reviews", "mpqa-opinion", "subjectivity", "slo-opinion",
           "election-tweets-2016", "r8", "r52", "ohsumed", "20ng")


def best_of_six(dataset: str, seed: int) -> float:
    """Test accuracy of the one of (a)-(f) with the highest validation accuracy (ties: the
    first)."""
    six = {**json.loads((RAW / f"{dataset}_seed{seed}_baselines.json").read_text())["baselines"],
           **json.loads((RAW / f"{dataset}_seed{seed}_encoders.json").read_text())["baselines"]}
    best = max(six, key=lambda k: six[k]["val_accuracy"])
    return float(six[best]["test"]["accuracy"])


def gaps(dataset: str, seed: int) -> tuple[float, float, float]:
    """``(chosen, (f) inside, best on test)`` minus the best of six."""
    rec = json.loads((RAW / f"{dataset}_seed{seed}_auto-encoder.json").read_text())
    arrays = np.load(RAW / f"{dataset}_seed{seed}_auto-encoder_candidates.npz")
    acc = (arrays["test_pred"] == arrays["test_labels"]).mean(axis=1)
    rows = rec["candidates"]
    chosen = next(k for k, r in enumerate(rows) if r["chosen"])
    inside = next(k for k, r in enumerate(rows)
                  if r["predictor"] == "linear" and r["features"] == "ngram-tfidf+encoder")
    ref = best_of_six(dataset, seed)
    return acc[chosen] - ref, acc[inside] - ref, acc.max() - ref


def main() -> int:
    print("| corpus | seeds | chosen | (f) inside | best on test (ceiling) |")
    print("|---|---|---|---|---|")
    means = []
    for ds in CORPORA:
        seeds = [s for s in range(3) if (RAW / f"{ds}_seed{s}_auto-encoder.json").is_file()]
        if not seeds:
            continue
        g = 100 * np.mean([gaps(ds, s) for s in seeds], axis=0)
        means.append(g)
        print(f"| {ds} | {len(seeds)} | {g[0]:+.2f} | {g[1]:+.2f} | {g[2]:+.2f} |")
    m = np.mean(means, axis=0)
    print(f"| mean | | {m[0]:+.2f} | {m[1]:+.2f} | {m[2]:+.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

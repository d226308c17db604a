"""The ``--auto`` rows of ``benchmarks/vs_linear.py``'s records under the search's current
choice rule, without training again.

Which candidates a search trains does not depend on the rule that picks its answer among them
(:mod:`gfbgcn.text.search.candidates`), so a record that keeps every candidate's validation
probabilities and test predictions (the candidate table and ``*_auto_candidates.npz``) gives
the answer of the current rule exactly: each candidate's validation log-loss and accuracy are
recomputed from the arrays as the search computes them (a combination at its recorded
weight), :func:`~gfbgcn.text.search.candidates.choose` picks, and the record's ``auto`` entry
and ``choice`` become the picked candidate's; the previous ones stay under ``auto_before`` and
``choice_before``.  The searches with an encoder (``*_auto-encoder.json``) are re-chosen the
same way: their protected candidate is the partner, the linear model of lowest validation
log-loss (:func:`candidates_of`), or in a search that cross-fitted its linear models the partner
it chose (:func:`recorded_partner`).  The record's ``choice.rule`` names the rule
(``candidates.choose (RULE: <name>)``).  Then ``vs_linear.py --report-only`` writes the table.

    python benchmarks/vs_linear_rechoose.py --records docs/results/raw/vs-linear
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from _candidates import baseline_val_proba
from gfbgcn.core.io import atomic_write_json
from gfbgcn.core.metrics import classification_metrics, mean_log_loss
from gfbgcn.text.predict.combined import mix
from gfbgcn.text.search import candidates as candidates_module
from gfbgcn.text.search.candidates import Candidate, choose
from gfbgcn.text.search.selection import per_document_correct, per_document_log_loss

ROOT = Path(__file__).resolve().parent.parent


def recorded_partner(choice: dict[str, Any]) -> int | None:
    """The combinations' partner (its index among the linear models) of a search that
    cross-fitted its linear models (records from 2026-12-03 on, ``choice`` holds
    ``linears_cross_validated``): the smoothed copy, last, where the smoothing was kept, else
    the highest held-out accuracy (ties: lower held-out log-loss, then the earlier), as
    :mod:`gfbgcn.text.search.auto` chose it.  None for an earlier search."""
    scores = choice.get("linears_cross_validated")
    if not scores:
        return None
    if (choice.get("smoothing") or {}).get("kept"):
        return len(scores)
    return max(range(len(scores)), key=lambda i: (scores[i]["cv_accuracy"],
                                                  -scores[i]["cv_log_loss"], -i))


def candidates_of(rows: list[dict[str, Any]], arrays: Any, partner: int | None = None
                  ) -> tuple[list[Candidate], int]:
    """The record's candidates with the validation numbers the choice compares, and the index
    of the protected one: the linear model the combinations use, ``partner`` (its index among
    the linear models, :func:`recorded_partner`), or where that is None the one of lowest
    validation log-loss (the n-gram baseline where it is the only one)."""
    y = arrays["val_labels"]
    linears = arrays["linears_val_proba"] if "linears_val_proba" in arrays else \
        baseline_val_proba(arrays)[None]
    if partner is None:
        partner = int(np.argmin([mean_log_loss(y, p) for p in linears]))
    out, g, j = [], -1, -1
    for row in rows:
        if row["predictor"] == "linear":
            j += 1
            probs = linears[j]
        else:
            g += row["predictor"] == "graph"
            probs = arrays["graph_val_proba"][g]
            if row["predictor"] == "graph+linear":
                probs = mix(probs, linears[partner], float(row["weight"]))
        out.append(Candidate(None, row["model"], False, row["predictor"],
                             float((probs.argmax(1) == y).mean()), 0.0,
                             val_log_loss=mean_log_loss(y, probs),
                             val_losses=per_document_log_loss(y, probs),
                             val_correct=per_document_correct(y, probs)))
    protected = [k for k, row in enumerate(rows) if row["predictor"] == "linear"][partner]
    return out, protected


def rechoose(record: Path) -> tuple[bool, str]:
    """Rewrite ``record``'s answer under the current rule; ``(changed, what it chose)``."""
    rec = json.loads(record.read_text(encoding="utf-8"))
    arrays = np.load(record.with_name(record.stem + "_candidates.npz"))
    rows = rec["candidates"]
    cands, protected = candidates_of(rows, arrays,
                                     recorded_partner(rec.get("choice_before", rec["choice"])))
    recorded = next(k for k, row in enumerate(rows) if row["chosen"])
    # the arrays reproduce the search's own validation accuracies
    for c, row in zip(cands, rows):
        if f"{c.val_accuracy:.4f}" != row["val_accuracy"]:
            raise SystemExit(f"{record}: candidate {row} does not reproduce its validation "
                             f"accuracy ({c.val_accuracy:.4f})")
    k = cands.index(choose(cands, protected))
    pred = arrays["test_pred"][k].astype(np.int64)
    y = np.asarray(rec["test_labels"])
    num_classes = baseline_val_proba(arrays).shape[1]
    if "auto_before" not in rec:
        rec["auto_before"], rec["choice_before"] = rec["auto"], rec["choice"]
    row = rows[k]
    rec["auto"] = {"test": _metrics(y, pred, num_classes), "predictions": pred.tolist()}
    rec["choice"] = {**{key: row[key] for key in ("stop_words", "min_freq", "window", "model",
                                                  "features", "predictor", "weight")},
                     "val_accuracy": cands[k].val_accuracy,
                     "val_log_loss": cands[k].val_log_loss,
                     **({"linear": row["model"]} if row["predictor"] == "linear" else {}),
                     "rule": f"candidates.choose (RULE: {candidates_module.RULE.name})",
                     "trained": rec["choice_before"]["trained"],
                     "candidates": len(rows), "seconds": rec["choice_before"]["seconds"]}
    for i, r in enumerate(rows):
        r["chosen"] = i == k
    atomic_write_json(record, rec)
    return k != recorded, f"{row['predictor']} {row['model']} {row['features']}"


def _metrics(y: np.ndarray, pred: np.ndarray, num_classes: int) -> dict[str, float]:
    m = classification_metrics(y, pred, num_classes)
    return {"accuracy": m["accuracy"], "macro_f1": m["macro_f1"]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=Path, default=ROOT / "docs/results/raw/vs-linear")
    args = parser.parse_args(argv)
    records = sorted(p for pattern in ("*_auto.json", "*_auto-encoder.json")
                     for p in args.records.glob(pattern)
                     if p.with_name(p.stem + "_candidates.npz").is_file())
    for record in records:
        changed, what = rechoose(record)
        print(f"{record.name}: {'changed to' if changed else 'kept'} {what}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

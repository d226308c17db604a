"""``gfbgcn train`` on a user's own file: what the baseline beside the result and ``--auto``
record (the verb's side, printing and saving, is :mod:`gfbgcn.cli.train_auto`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gfbgcn.core.metrics import classification_metrics
from gfbgcn.text.corpus.benchmarks import canonical_name
from gfbgcn.text.predict.baseline import BaselineResult, graph_split
from gfbgcn.text.predict.combined import mix


def is_own_file(dataset: str) -> bool:
    """A user's corpus file rather than one of the benchmark names."""
    try:
        canonical_name(dataset)
    except ValueError:
        return True
    return Path(dataset).is_file()


def baseline_metrics(b: BaselineResult) -> dict[str, Any]:
    """The ``baseline`` object of ``metrics.json``: ``test``/``val`` with the graph model's keys,
    the chosen classifier and the validation grid."""
    return {"test": b.test, "val": b.val, "classifier": b.model.description,
            "kind": b.model.kind, "params": b.model.params, "temperature": b.model.temperature,
            "val_grid": b.grid, "seconds": b.seconds,
            "method": BASELINE_METHOD if b.model.ngrams is not None else UNIGRAM_METHOD}


BASELINE_METHOD = ("word 1-2-gram + char_wb 2-5-gram TF-IDF (sublinear tf, smoothed idf, L2 per "
                   "block) + a linear classifier (logistic regression, linear SVM, SGD modified "
                   "Huber or complement naive Bayes) and its regularisation chosen on validation, "
                   "refitted on the whole training split, temperature-calibrated probabilities "
                   "(scikit-learn)")
UNIGRAM_METHOD = ("TF-IDF (sublinear tf, smoothed idf, L2) + multinomial logistic regression "
                  "(scikit-learn), C chosen on validation")


def _combined_metrics(auto) -> dict:
    """``test``/``val`` metrics of a chosen combination (the combined predictor's; graph weight
    0 is the baseline alone).  Validation documents are scored with the baseline's held-out
    probabilities, the ones the weight was chosen on."""
    g = auto.graph
    split = graph_split(g, auto.result.config.val_ratio, auto.result.config.seed)
    p_lin = auto.baseline.probabilities.copy()
    p_lin[auto.baseline.val_idx] = auto.baseline.val_proba()
    pred = mix(auto.result.probabilities, p_lin, auto.chosen.weight).argmax(1)
    metrics: dict = {"combined_weight": float(auto.chosen.weight)}
    for name in ("test", "val"):
        idx = split[name]
        metrics[name] = classification_metrics(g.labels[idx], pred[idx], len(g.label_names))
    return metrics

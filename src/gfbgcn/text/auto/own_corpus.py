"""``gfbgcn train`` on a user's own file: what the baseline beside the result and ``--auto``
record (the verb's side, printing and saving, is :mod:`gfbgcn.cli.train_auto`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gfbgcn.core.metrics import classification_metrics
from gfbgcn.text.corpus.benchmarks import canonical_name
from gfbgcn.text.predict.baseline import BaselineResult
from gfbgcn.text.predict.combined import mix


def is_own_file(dataset: str) -> bool:
    """A user's corpus file rather than one of the benchmark names."""
    try:
        canonical_name(dataset)
    except ValueError:
        return True
    return Path(dataset).is_file()


def baseline_metrics(b: BaselineResult) -> dict[str, Any]:
    """The ``baseline`` object of ``metrics.json``: ``test``/``val`` with the graph model's keys."""
    return {"test": b.test, "val": b.val, "C": b.model.C,
            "val_accuracy_by_C": {f"{c:g}": a for c, a in b.val_by_C.items()},
            "seconds": b.seconds, "method": "TF-IDF (sublinear tf, smoothed idf, L2) + "
            "multinomial logistic regression (scikit-learn), C chosen on validation"}


def _combined_metrics(auto) -> dict:
    """``test``/``val`` metrics of a chosen combination (the combined predictor's)."""
    g = auto.graph
    data = g.to_data(auto.result.config.val_ratio, auto.result.config.seed)
    d = g.num_docs
    pred = mix(auto.result.probabilities, auto.baseline.probabilities,
               auto.chosen.weight).argmax(1)
    metrics: dict = {"combined_weight": float(auto.chosen.weight)}
    for split in ("test", "val"):
        idx = getattr(data, f"{split}_mask")[:d].nonzero().view(-1).numpy()
        metrics[split] = classification_metrics(g.labels[idx], pred[idx], len(g.label_names))
    return metrics



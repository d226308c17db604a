"""Two classifiers' class probabilities mixed, ``p = w p_a + (1 - w) p_b``, with ``w`` chosen
on validation documents: how ``--auto`` combines a graph model with a linear one
(:mod:`gfbgcn.text.predict.combined`) and how ``--encoder-finetune`` mixes its graph part and
its encoder head after training (:mod:`gfbgcn.text.train.finetune`), as BertGCN interpolates
its GCN and BERT heads.

``w`` runs over :data:`WEIGHT_GRID`, from 0 (``p_b`` alone) to 1 (``p_a`` alone), and
minimises the validation log-loss (ties: the smaller ``w``).  Log-loss rather than accuracy
because accuracy is a step function of ``w``: on a small validation split (slo-opinion has 123
documents, one document is 0.8 points) many weights tie or nearly tie on accuracy and the
chosen one is close to arbitrary, while the log-loss, a proper scoring rule, is smooth in ``w``
and has one minimum (it is convex in ``w``; ``docs/results/own-corpora_notes.md`` compares the
rules).
"""

from __future__ import annotations

import numpy as np

from gfbgcn.core.metrics import mean_log_loss

__all__ = ["WEIGHT_GRID", "choose_weight", "mix"]

WEIGHT_GRID = tuple(np.round(np.linspace(0.0, 1.0, 21), 2))


def mix(p_graph: np.ndarray, p_linear: np.ndarray, weight: float) -> np.ndarray:
    """``weight * p_graph + (1 - weight) * p_linear`` (``[n, C]`` each)."""
    return weight * p_graph + (1.0 - weight) * p_linear


def choose_weight(p_graph: np.ndarray, p_linear: np.ndarray, y: np.ndarray
                  ) -> tuple[float, float, float]:
    """``(weight, validation accuracy, validation log-loss at that weight)``: the weight of
    :data:`WEIGHT_GRID` with the lowest log-loss on the validation documents (``p_graph``,
    ``p_linear``: ``[n, C]`` probabilities of the ``n`` documents of classes ``y``); 0.5 with
    no document."""
    y = np.asarray(y)
    if len(y) == 0:
        return 0.5, 0.0, float("nan")
    losses = [mean_log_loss(y, mix(p_graph, p_linear, float(w))) for w in WEIGHT_GRID]
    best = int(np.argmin(losses))  # argmin: the first, smallest w, on ties
    weight = float(WEIGHT_GRID[best])
    accuracy = float((mix(p_graph, p_linear, weight).argmax(1) == y).mean())
    return weight, accuracy, float(losses[best])

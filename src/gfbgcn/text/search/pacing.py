"""What bounds an ``--auto`` search (:mod:`gfbgcn.text.search.auto`): the ``--budget`` of
candidates or minutes, and the rule that stops a trailing candidate at successive halving's
rungs.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

import numpy as np

from gfbgcn.core.errors import OptionError

#: Epochs at which a trailing candidate is stopped (successive halving's rungs).  Not 10: at
#: epoch 10 the rule stopped candidates that start slowly and catch up (the 24 searches of
#: ``docs/results/own-corpora.md``: GFB-MaxVec with no stop words and ``min_freq`` 2 was
#: stopped there in 8, with ``min_freq`` 1 in none; on customer-reviews, seed 0, the two had
#: 67.8 and 76.1 % validation accuracy at epoch 10, 79.2 and 80.3 at epoch 20, and both
#: reached 80.3).
RUNGS = (20, 40, 80)


def prune_margin(num_val: int) -> float:
    """How far (validation accuracy) a candidate may trail the incumbent at a rung: 3
    validation documents, at least 2 points (equal-epoch comparisons are noisy, and a slow
    starter should not be cut for one or two documents).

    Args:
        num_val: the validation documents.
    """
    return max(0.02, 3.0 / max(num_val, 1))


class RungRule:
    """The stop rule of one candidate (:data:`gfbgcn.text.train.full_batch.StopRule`): stop at
    a rung when its best validation accuracy so far is below the incumbent's at the same epoch
    minus ``margin``.

    Args:
        incumbent: the incumbent's training history (``val_acc`` per epoch).
        margin: see :func:`prune_margin`.
    """

    def __init__(self, incumbent: list[dict[str, float]], margin: float) -> None:
        self.best_by_epoch = np.maximum.accumulate([h["val_acc"] for h in incumbent])
        self.margin = margin
        self.stopped_at: int | None = None

    def __call__(self, history: list[dict[str, float]]) -> bool:
        epoch = len(history)
        if epoch not in RUNGS or not len(self.best_by_epoch):
            return False
        # past the incumbent's last epoch, its best stays what it reached
        ref = self.best_by_epoch[min(epoch, len(self.best_by_epoch)) - 1]
        if max(h["val_acc"] for h in history) + self.margin < ref:
            self.stopped_at = epoch
            return True
        return False


@dataclass
class Budget:
    """At most ``candidates`` trainings and/or ``minutes`` of search (None: unbounded)."""

    candidates: int | None = None
    minutes: float | None = None
    start: float = field(default_factory=time.perf_counter)

    def allows(self, trained: int) -> bool:
        if self.candidates is not None and trained >= self.candidates:
            return False
        elapsed = (time.perf_counter() - self.start) / 60.0
        return self.minutes is None or elapsed < self.minutes


def parse_budget(text: str | int) -> Budget:
    """``--budget``: ``N`` candidates, or ``Nm``/``Nmin`` minutes (an :class:`OptionError`
    otherwise)."""
    text = str(text) if isinstance(text, int) and not isinstance(text, bool) else text
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(m|min|minutes?)?\s*",
                         text if isinstance(text, str) else "")
    if not match or float(match.group(1)) <= 0 or (not match.group(2) and "." in match.group(1)):
        raise OptionError("{0} must be a number of candidates (e.g. 8) or minutes (e.g. 10m), "
                          "got {text!r}", "budget", text=text)
    value = float(match.group(1))
    return Budget(minutes=value) if match.group(2) else Budget(candidates=int(value))

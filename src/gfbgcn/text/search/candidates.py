"""The rows of an ``--auto`` search (:mod:`gfbgcn.text.search.auto`): graph settings,
candidates, the search's result, and the rule that picks the answer among the candidates.

**The choice.** With linear models in the search (the default), the answer is the candidate
:func:`gfbgcn.text.search.selection.choose_index` picks under
:data:`~gfbgcn.text.search.selection.RULE` against the protected candidate (the linear model
the combinations use: the linear model of highest held-out accuracy over the training
documents' folds, smoothed over the documents' graph where that helps; on the validation split
alone, the linear model of lowest validation log-loss: :mod:`gfbgcn.text.search.auto`).
RULE is the protected candidate always (``z = inf``), the decision of
``benchmarks/selection_study_encoder.py`` on the validation documents of 48 recorded searches
with and without an encoder (``docs/results/selection-rules-encoder.md``): every rule that
lets a graph candidate or a combination replace the protected candidate either fell more than
0.3 points below it on a corpus or was not above it on average.  The graph candidates and their
combinations are still trained, scored and listed (``auto.csv``): a user who wants one
trains it with its settings.  Before it the answer was the candidate of lowest
validation log-loss (``benchmarks/selection_study.py``, ``docs/results/selection-rules.md``,
on the searches without an encoder), and before 2026-11-27 the highest validation accuracy.
Without the baseline (``--no-baseline``, no combinations), which the studies did not cover,
the answer is the highest validation accuracy, as before.  The search's own steps (which graph
setting stage 2 uses, which model stage 3 retrains, the incumbent of the stop rule) go by
accuracy: the studies took them as given.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gfbgcn.core.metrics import classification_metrics
from gfbgcn.text.graph.text_graph import TextGraph
from gfbgcn.text.linear.baseline import BaselineResult
from gfbgcn.text.linear.smoothing import SmoothingChoice
from gfbgcn.text.search.selection import RULE, choose_index
from gfbgcn.text.train.config import TrainResult


@dataclass(frozen=True)
class GraphSetting:
    stop_words: str | None
    min_freq: int
    window: int

    def label(self) -> str:
        return f"stop={self.stop_words or 'none'} min_freq={self.min_freq} window={self.window}"


@dataclass
class Candidate:
    """One row of the search table (``test`` is kept for result tables, never for choosing).

    A linear model's row (the n-gram baseline, and with an encoder the encoder head and the
    baseline with the embeddings) has ``predictor`` ``"linear"``, no graph ``setting``,
    ``model`` ``"linear"``, its classifier in ``linear`` (e.g. ``svm C=0.3``) and its features
    in ``features``.  ``linear_index``: that model's place in :attr:`AutoResult.linears`, for
    a linear row and for a combination (the linear model it is combined with).
    """

    setting: GraphSetting | None
    model: str
    fast: bool
    predictor: str  # "graph", "graph+linear" or "linear"
    val_accuracy: float
    seconds: float
    weight: float | None = None  # graph share of a combination
    test: dict[str, float] = field(default_factory=dict)
    features: str = "onehot"  # node input (text/train/features/)
    linear: str = ""  # the baseline's classifier (predictor "linear")
    stopped_at: int | None = None  # the rung where the search's rule stopped it (RungRule)
    val_log_loss: float = float("nan")  # what the choice compares (module docstring)
    linear_index: int | None = None  # which of AutoResult.linears (linear, graph+linear)
    #: ``[V]`` its log-loss on each validation document (what the choice compares)
    val_losses: np.ndarray | None = field(default=None, repr=False, compare=False)
    #: ``[V]`` whether it is right on each validation document (a rule with accuracy_gain)
    val_correct: np.ndarray | None = field(default=None, repr=False, compare=False)

    @property
    def graph_setting(self) -> GraphSetting:
        """The graph of a graph (or combined) candidate; the baseline's row has none."""
        if self.setting is None:
            raise ValueError("the linear baseline's candidate has no graph setting")
        return self.setting

    @property
    def result_key(self) -> tuple[GraphSetting, str, bool, str]:
        """Its key in :attr:`AutoResult.results` (graph and combined candidates only)."""
        return (self.graph_setting, self.model, self.fast, self.features)

    @property
    def model_label(self) -> str:
        if self.predictor == "linear":
            what = {"ngram-tfidf": "linear baseline", "encoder": "encoder head"}.get(
                self.features, "linear baseline with encoder")
            return f"{what} ({self.linear})"
        return self.model + (" fast" if self.fast else "") + \
            ("" if self.features == "onehot" else f" +{self.features}")

    def row(self) -> dict[str, Any]:
        if self.setting is None:  # the baseline: no graph
            return {"stop_words": "", "min_freq": "", "window": "", "model": self.linear,
                    "features": self.features, "predictor": self.predictor, "weight": "",
                    "val_accuracy": f"{self.val_accuracy:.4f}",
                    "val_log_loss": f"{self.val_log_loss:.4f}",
                    "seconds": f"{self.seconds:.1f}", "stopped_at": ""}
        return {"stop_words": self.setting.stop_words or "none",
                "min_freq": self.setting.min_freq, "window": self.setting.window,
                "model": self.model + (" fast" if self.fast else ""), "features": self.features,
                "predictor": self.predictor,
                "weight": "" if self.weight is None else f"{self.weight:.2f}",
                "val_accuracy": f"{self.val_accuracy:.4f}",
                "val_log_loss": f"{self.val_log_loss:.4f}", "seconds": f"{self.seconds:.1f}",
                "stopped_at": "" if self.stopped_at is None else str(self.stopped_at)}


@dataclass
class AutoResult:
    candidates: list[Candidate]
    chosen: Candidate
    result: TrainResult  # the graph model of the chosen candidate (or of its combination)
    graph: TextGraph
    baseline: BaselineResult | None  # the n-gram baseline; None: searched without it
    seconds: float
    trained: int = 0  # candidates trained (what --budget counts); their combinations aside
    #: every trained candidate's result, by (setting, model, fast, features)
    results: dict[tuple[GraphSetting, str, bool, str], TrainResult] = field(default_factory=dict)
    #: the linear models of the search: the n-gram baseline first (``baseline``), then with
    #: an encoder the encoder head and the baseline with the embeddings beside its n-grams
    linears: list[BaselineResult] = field(default_factory=list)
    #: the cross-fitted choice of smoothing the linear model the combinations use over the
    #: documents' graph (None: not tried, :mod:`gfbgcn.text.linear.smoothing`)
    smoothing: SmoothingChoice | None = None
    #: the index in :attr:`linears` of the model smoothing was tried on (when it was kept,
    #: the smoothed one is another, the last linear model and the combinations' partner)
    smoothing_source: int | None = None
    #: each linear model's held-out accuracy and log-loss over the training documents' folds
    #: (by its index in :attr:`linears`; empty: judged on the validation split alone)
    cross_validated: list[dict[str, float]] = field(default_factory=list)

    def linear_of(self, candidate: Candidate) -> BaselineResult | None:
        """The linear model of a linear or combined ``candidate`` (None for a graph one)."""
        if candidate.linear_index is None:
            return None
        return self.linears[candidate.linear_index]

    def result_of(self, candidate: Candidate) -> TrainResult:
        """The training result of a graph (or combined) ``candidate``."""
        return self.results[candidate.result_key]

    def table(self) -> str:
        """The compact table printed and saved as ``auto.csv``."""
        buf = io.StringIO()
        rows = [c.row() for c in self.candidates]
        writer = csv.DictWriter(buf, fieldnames=["chosen", *rows[0]], lineterminator="\n")
        writer.writeheader()
        for c, row in zip(self.candidates, rows):
            writer.writerow({"chosen": "*" if c is self.chosen else "", **row})
        return buf.getvalue()

    def aligned(self) -> str:
        """The same table with aligned columns, for the terminal."""
        rows = list(csv.reader(io.StringIO(self.table())))
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        return "".join("  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip() + "\n"
                       for r in rows)

    def best_graph_only(self) -> Candidate:
        """The graph-only candidate with the best validation accuracy (earliest on ties)."""
        return best_by_accuracy([c for c in self.candidates if c.predictor == "graph"])

    @property
    def chose_baseline(self) -> bool:
        """A linear model won on validation (no graph candidate strictly better)."""
        return self.chosen.predictor == "linear"


def best_by_accuracy(candidates: Sequence[Candidate]) -> Candidate:
    """The candidate of highest validation accuracy (the search's own steps; ties: earliest)."""
    return max(candidates, key=lambda c: c.val_accuracy)  # max keeps the earliest of equals


def accuracy_and_f1(y: np.ndarray, probs: np.ndarray, idx: np.ndarray, num_classes: int
                    ) -> dict[str, float]:
    """Accuracy and macro F1 of ``probs``' argmax on documents ``idx`` (for the tables);
    empty without documents (no labelled test document: nothing scored)."""
    if not len(idx):
        return {}
    m = classification_metrics(y[idx], probs[idx].argmax(1), num_classes)
    return {"accuracy": m["accuracy"], "macro_f1": m["macro_f1"]}


def choose(candidates: Sequence[Candidate], protected: int | None) -> Candidate:
    """The search's answer (module docstring): with linear models in the search, the
    candidate :func:`gfbgcn.text.search.selection.choose_index` picks, under
    :data:`~gfbgcn.text.search.selection.RULE`, against the ``protected`` candidate (the
    linear model the combinations use); without them (``protected`` None), the highest
    validation accuracy; ties: the earliest."""
    if protected is None:
        return best_by_accuracy(candidates)
    losses = [c.val_losses for c in candidates]
    if any(loss is None for loss in losses):
        raise ValueError("every candidate needs its per-document validation losses")
    correct = None
    if RULE.accuracy_gain:
        correct = [c.val_correct for c in candidates]
        if any(x is None for x in correct):
            raise ValueError(f"the rule {RULE.name!r} needs every candidate's per-document "
                             f"validation correctness")
    return candidates[choose_index([np.asarray(x) for x in losses], protected, RULE,
                                   None if correct is None else
                                   [np.asarray(x) for x in correct])]


def chosen_summary(auto: AutoResult) -> dict[str, Any]:
    """The choice as recorded in ``metrics.json`` and the results records."""
    c = auto.chosen
    smoothing: dict[str, Any] = {} if auto.smoothing is None else {
        "smoothing": auto.smoothing.summary()}
    if auto.cross_validated:
        smoothing["linears_cross_validated"] = [
            {"linear": b.model.description, **s}
            for b, s in zip(auto.linears, auto.cross_validated)]
    if c.setting is None:  # a linear model
        return {"stop_words": None, "min_freq": None, "window": None, "model": "linear",
                "fast_genvec": False, "predictor": "linear", "features": c.features,
                "linear": c.linear, "weight": 0.0, "val_accuracy": c.val_accuracy,
                "val_log_loss": c.val_log_loss,
                "trained": auto.trained, "candidates": len(auto.candidates),
                "seconds": auto.seconds, **smoothing}
    return {**smoothing, "stop_words": c.setting.stop_words, "min_freq": c.setting.min_freq,
            "window": c.setting.window, "model": c.model, "fast_genvec": c.fast,
            "predictor": c.predictor, "features": c.features, "weight": c.weight,
            "val_accuracy": c.val_accuracy, "val_log_loss": c.val_log_loss,
            "trained": auto.trained,
            "candidates": len(auto.candidates), "seconds": auto.seconds}

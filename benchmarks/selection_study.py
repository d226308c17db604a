"""By which rule should ``--auto`` pick its answer?  A study on validation documents only.

``--auto`` (:mod:`gfbgcn.text.search.auto`) chooses among the linear baseline, every trained
graph candidate and every graph candidate combined with the baseline (weight chosen by
validation log-loss): about 19 candidates, picked on a few hundred validation documents.  The
best of many noisy estimates rewards luck, and a graph-only candidate is its own combination at
weight 1, so offering it separately is one more draw per training.

This study replays the searches recorded by ``benchmarks/vs_linear.py`` (the candidate table in
``*_auto.json``, the validation probabilities in ``*_auto_candidates.npz``) on their validation
documents alone.  Per search and repetition the validation documents are split at random into
halves A and B; a rule chooses on A (the combinations' weights chosen on A as well) and the
chosen candidate is scored on B, then the halves swap.  The candidates themselves (which graphs
and models were trained, and their early stopping) were chosen by the search on all validation
documents; that is common to all rules.  The baseline's own choice is re-made on A when the
searches' grid files exist (the last section below).  Test labels and predictions are not
read.

**First study** (accuracy against log-loss).  Its rules:

* ``accuracy`` (the search's rule when the study was written): highest accuracy, ties to the
  earliest candidate (the baseline first);
* ``accuracy, no graph-only``: the same among the baseline and the combinations;
* ``log-loss``: lowest log-loss (mean negative log-probability of the true class), ties to the
  earliest;
* ``log-loss, no graph-only``;
* ``accuracy, with the ensemble``: ``accuracy`` with one more candidate, last: the mean of the
  probabilities of the graph candidates that the search did not stop early, combined with the
  baseline (weight chosen by log-loss, as every combination's).  No training is added.

Its decision, fixed before it was first run: the rule with the highest held-out accuracy (mean
over corpora of each corpus's mean over its searches and repetitions) replaces the search's
rule when it is higher than ``accuracy`` and higher on at least as many corpora as it is lower;
otherwise the search keeps its rule (:func:`verdict`; it chose ``log-loss``).

**Second study** (never worse than the baseline beyond noise).  ``log-loss`` answered on new
corpora with combinations whose validation advantage rested on a few hundred documents and that
lost to the baseline on test.  The rules added, each one of
:class:`gfbgcn.text.search.selection.SelectionRule` applied by
:func:`gfbgcn.text.search.selection.choose_index` (the library's function, so the study and
``--auto`` cannot drift): the candidate of lowest log-loss on A (the ensemble not offered)
replaces the baseline only if its mean per-document advantage over the baseline on A exceeds a
margin plus ``z`` standard errors of the paired per-document difference, else the answer is the
baseline:

* ``baseline``: the baseline always (``z = inf``), the reference the rules must not fall below;
* ``log-loss, z >= 1``, ``z >= 1.64``, ``z >= 2.33``: a one-sided paired test at about 84 %,
  95 % and 99 % (``log-loss`` itself is ``z = 0``, margin 0);
* ``log-loss, margin 0.005 / 0.01 / 0.02 nats``: a fixed margin on the mean log-loss.

Its decision, fixed before any of these rules was run on the records: among ``baseline``,
``log-loss`` and the rules above, those whose held-out accuracy is below ``baseline``'s by no
more than 0.3 points on every corpus (a corpus's figure: its mean over its searches and
repetitions) are eligible.  The decided rule is the eligible one with the highest mean
held-out accuracy over corpora; rules within 0.01 points of that mean are tied, and ties go to
the more conservative: the one that answered with the baseline more often over all choices
(then the earlier in :data:`LIBRARY_RULES`).  ``baseline`` is always eligible, so there is
always a decision (:func:`decide`).  The report says whether the library's
:data:`~gfbgcn.text.search.selection.RULE` is the decided rule.

**The baseline re-chosen on the choosing half.**  The records keep the baseline's validation
probabilities of one classifier: the grid point (one of about 11 kinds and regularisation
strengths, :func:`gfbgcn.text.linear.grid.grid`) and the calibration temperature that the search
chose on *all* the validation documents, the scoring half included, while the combinations'
weights are chosen on the choosing half alone.  A replay on those probabilities flatters the
baseline, and with it the rules that answer with it.  ``benchmarks/baseline_grid_records.py``
fits every grid point again on the searches' training documents and keeps its validation
scores (``*_auto_baseline_grid.npz`` beside the record, written only when the choice on all
validation documents reproduces the recorded probabilities).  With those files for every
search, the replay chooses the baseline's grid point and temperature on the choosing half by
the baseline's own rule (:func:`choose_point`), scores that choice on the other half, and mixes
the graph candidates with *that* baseline (weights chosen on the choosing half, as before).
The rules, :func:`choose_index` and the second study's decision are unchanged; the decision is
taken on this replay, and the report gives the replay with the recorded baseline beside it.
This removes the baseline's advantage; the graph candidates' advantage remains: they were
early-stopped on all the validation documents (and the search's own steps used them), which
cannot be undone without training them again.

**Searches with an encoder** (``*_auto-encoder.json``, the third study:
``benchmarks/selection_study_encoder.py``).  They have three linear candidates (the n-gram
baseline, the encoder head, the n-gram baseline with the embeddings), all recorded
(``linears_val_proba``), and no grid files.  Their replay (:attr:`Search.linears_val`) re-makes
the search's choice of *partner* on the choosing half: the linear candidate of lowest log-loss
there (:func:`partner_on`), with which the combinations are mixed (weights chosen on that half)
and which is the protected candidate (:func:`protected_index`).  The linear candidates
themselves are the recorded ones (each chosen on all validation documents).  This script's own
report (the first two studies) replays the searches without an encoder only.

    python benchmarks/selection_study.py --records docs/results/raw/vs-linear \\
        --report docs/results/selection-rules.md
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from scipy.special import softmax

from _candidates import baseline_val_proba
from gfbgcn.core.metrics import mean_log_loss
from gfbgcn.text.linear.grid import GridPoint, best_on_validation, choose_temperature
from gfbgcn.text.predict.combined import choose_weight, mix
from gfbgcn.text.search.selection import (
    RULE,
    SelectionRule,
    choose_index,
    per_document_correct,
    per_document_log_loss,
)

ROOT = Path(__file__).resolve().parent.parent
# The second study's rules, applied by the library's choose_index (module docstring); the most
# conservative first.  SelectionRule() is the first study's `log-loss`.
LIBRARY_RULES = (SelectionRule(z=math.inf), SelectionRule(),
                 SelectionRule(z=1.0), SelectionRule(z=1.64), SelectionRule(z=2.33),
                 SelectionRule(margin=0.005), SelectionRule(margin=0.01),
                 SelectionRule(margin=0.02))
#: The third study's rules (benchmarks/selection_study_encoder.py): the leader must also be
#: right on more documents of the choosing half than the protected candidate.
ACCURACY_GAIN_RULES = (SelectionRule(accuracy_gain=True), SelectionRule(z=1.0, accuracy_gain=True),
                       SelectionRule(margin=0.01, accuracy_gain=True))
BY_NAME = {r.name: r for r in LIBRARY_RULES + ACCURACY_GAIN_RULES}  # every rule choose knows
SECOND_STUDY = tuple(r.name for r in LIBRARY_RULES)  # the rules its decision compares
FIRST_STUDY = ("accuracy", "accuracy, no graph-only", "log-loss, no graph-only",
               "accuracy, with the ensemble")
RULES = SECOND_STUDY + FIRST_STUDY  # this script's report
FIRST_STUDY_RULES = ("accuracy", "accuracy, no graph-only", "log-loss",
                     "log-loss, no graph-only", "accuracy, with the ensemble")  # its verdict's
BASELINE = LIBRARY_RULES[0].name
TOLERANCE = 0.003  # the decision's 0.3 points below the baseline on a corpus
TIE = 0.0001  # means within 0.01 points tie
KINDS = ("linear", "graph", "graph+linear", "ensemble")
#: The grid file of a record (``benchmarks/baseline_grid_records.py``), beside it.
GRID_SUFFIX = "_baseline_grid.npz"
#: The grid file of a record with an encoder (``benchmarks/encoder_grid_records.py``).
LINEARS_GRID_SUFFIX = "_linears_grid.npz"


@dataclass
class Search:
    """One recorded search, validation side only: ``kinds`` per candidate in table order
    (``linear``, ``graph``, ``graph+linear``); ``graph_of`` the index into ``graph_val`` of a
    graph or combined candidate (-1 for the baseline)."""

    dataset: str
    seed: int
    kinds: list[str]  # the last is "ensemble": see candidate_probs
    graph_of: list[int]
    y: np.ndarray  # [V] validation labels
    linear_val: np.ndarray  # [V, C] the baseline's held-out validation probabilities
    graph_val: np.ndarray  # [G, V, C]
    chosen: int  # the record's answer
    rule: str  # the rule that gave it (the search's, or vs_linear_rechoose.py's)
    full: list[int]  # the graph candidates (indices into graph_val) not stopped early
    # [P, V, C] the baseline's grid points' validation scores (fitted on the training
    # documents, before temperature); None: no grid file, the recorded baseline is used
    grid_val: np.ndarray | None = None
    # [L, V, C] a search with an encoder: every linear candidate's recorded validation
    # probabilities, in table order; the partner (protected, mixed into the combinations) is
    # re-chosen on each choosing half (partner_on).  None: one linear candidate, the baseline
    linears_val: np.ndarray | None = None
    # per linear candidate, its grid points' validation scores [P_l, V, C] (fitted on the
    # training documents, before temperature: encoder_grid_records.py); None: no grid files,
    # the recorded linear candidates are used
    linears_grid: list[np.ndarray] | None = None
    # linears_on's re-chosen probabilities, per choosing half
    _rechosen: dict[bytes, np.ndarray] = field(default_factory=dict, repr=False, compare=False)

    @property
    def group(self) -> str:
        """Its group in the reports: the corpus, with `` +encoder`` for a search with one."""
        return self.dataset + (" +encoder" if self.linears_val is not None else "")


def linears_on(s: Search, choose_on: np.ndarray, rechoose: bool = True) -> np.ndarray:
    """``[L, V, C]``: a search with an encoder's linear candidates' validation probabilities.
    With its grid files (:attr:`Search.linears_grid`) and ``rechoose``, each candidate's grid
    point and temperature chosen again on positions ``choose_on`` alone (:func:`choose_point`,
    each candidate's own rule); otherwise the recorded ones (chosen on all validation
    documents)."""
    assert s.linears_val is not None
    if s.linears_grid is None or not rechoose:
        return s.linears_val
    key = np.asarray(choose_on).tobytes()
    if key not in s._rechosen:
        y = s.y[choose_on]
        s._rechosen[key] = np.stack([point_proba(g, *choose_point(g[:, choose_on], y))
                                     for g in s.linears_grid])
    return s._rechosen[key]


def partner_on(s: Search, choose_on: np.ndarray, rechoose: bool = True) -> int:
    """Which of the linear candidates (0: the first) the combinations use and the rules
    protect, chosen on positions ``choose_on``: the lowest log-loss there, ties to the earliest
    (the search's own choice, on its documents); 0 without :attr:`Search.linears_val`.  The
    candidates: :func:`linears_on`."""
    if s.linears_val is None:
        return 0
    y = s.y[choose_on]
    return int(np.argmin([mean_log_loss(y, p[choose_on])
                          for p in linears_on(s, choose_on, rechoose)]))


def protected_index(s: Search, choose_on: np.ndarray, rechoose: bool = True) -> int:
    """The candidate (table index) the rules protect when choosing on ``choose_on``."""
    rows = [k for k, kind in enumerate(s.kinds) if kind == "linear"]
    return rows[partner_on(s, choose_on, rechoose)]


def choose_point(scores: np.ndarray, y: np.ndarray) -> tuple[int, float]:
    """``(point, temperature)``: the baseline's own choice among its grid points, from their
    validation scores ``[P, n, C]`` (before temperature) and the documents' classes ``y``.

    Per point the temperature of :func:`~gfbgcn.text.linear.grid.choose_temperature`, then the
    highest accuracy of ``softmax(scores / T)``, ties to the lower log-loss, then to the earlier
    point (:func:`~gfbgcn.text.linear.grid.best_on_validation`, which it calls): what
    :func:`~gfbgcn.text.linear.baseline.choose_and_refit` does on all validation documents."""

    def evaluate(point: GridPoint) -> tuple[float, float, dict, float]:
        s = np.asarray(scores[int(point.value)], dtype=np.float64)
        t = choose_temperature(s, y)
        probs = softmax(s / t, axis=1)
        acc = float((probs.argmax(1) == y).mean()) if len(y) else 0.0
        return acc, (mean_log_loss(y, probs) if len(y) else 0.0), {}, t

    points = [GridPoint("grid", "index", float(p)) for p in range(len(scores))]
    best, t, _ = best_on_validation(points, evaluate, threads=1)
    return int(best.value), float(t)


def point_proba(scores: np.ndarray, point: int, temperature: float) -> np.ndarray:
    """``softmax(scores[point] / temperature)`` in float64: a grid point's probabilities."""
    return softmax(np.asarray(scores[point], dtype=np.float64) / temperature, axis=1)


def baseline_on(s: Search, choose_on: np.ndarray, rechoose: bool = True) -> np.ndarray:
    """``[V, C]``: the baseline's validation probabilities.  With the search's grid file and
    ``rechoose``, its grid point and temperature chosen again on positions ``choose_on`` alone
    (:func:`choose_point`); otherwise the record's (chosen on all validation documents).  For
    a search with an encoder: the partner chosen on ``choose_on`` (:func:`partner_on`)."""
    if s.linears_val is not None:
        return linears_on(s, choose_on, rechoose)[partner_on(s, choose_on, rechoose)]
    if s.grid_val is None or not rechoose:
        return s.linear_val
    point, t = choose_point(s.grid_val[:, choose_on], s.y[choose_on])
    return point_proba(s.grid_val, point, t)


def check_grid(s: Search) -> tuple[bool, float]:
    """The grid file against the record: ``(the point re-chosen on all validation documents
    is the one whose probabilities are recorded, largest |difference| of the probabilities)``
    (the grid file stores float32 scores: differences of order 1e-6 are rounding)."""
    assert s.grid_val is not None
    point, t = choose_point(s.grid_val, s.y)
    diffs = [float(np.abs(point_proba(s.grid_val, p, t) - s.linear_val).max())
             for p in range(len(s.grid_val))]
    return int(np.argmin(diffs)) == point, diffs[point]


def rule_of(choice: dict) -> str:
    """The rule that gave a record's answer, by this study's names: the library rule named
    after ``RULE:`` in the record's ``rule`` (``vs_linear_rechoose.py``), else ``log-loss``
    when it says log-loss or says nothing but records a log-loss (the searches' own records,
    written under :func:`gfbgcn.text.search.candidates.choose`'s log-loss), else
    ``accuracy``."""
    rule = str(choice.get("rule", ""))
    if "RULE: " in rule:
        name = rule.split("RULE: ", 1)[1].rstrip(")")
        if name in BY_NAME:
            return name
    if "log-loss" in rule or (not rule and "val_log_loss" in choice):
        return "log-loss"
    return "accuracy"


def load_linears_grid(record: Path, rec: dict, arrays: Any) -> list[np.ndarray] | None:
    """A search with an encoder's grid files (``benchmarks/encoder_grid_records.py``): the
    n-gram baseline's (that of the search without an encoder of the same corpus and seed),
    the encoder head's and the stacked model's scores, in table order; None without them."""
    path = record.with_name(record.stem + LINEARS_GRID_SUFFIX)
    ngram = record.with_name(f"{rec['dataset']}_seed{rec['seed']}_auto{GRID_SUFFIX}")
    if not path.is_file() or not ngram.is_file():
        return None
    grids, ngrams = np.load(path), np.load(ngram)
    for name, f in ((path.name, grids), (ngram.name, ngrams)):
        if not np.array_equal(f["val_labels"], arrays["val_labels"]):
            raise ValueError(f"{name}: validation documents differ from {record.name}'s")
    return [ngrams["val_scores"].astype(np.float64), grids["head_scores"].astype(np.float64),
            grids["stacked_scores"].astype(np.float64)]


def load_search(record: Path) -> Search:
    """A search from its ``*_auto.json`` (or ``*_auto-encoder.json``) record and its
    ``_candidates.npz`` arrays (their validation side only: the records' test fields are not
    read), with its grid file (:data:`GRID_SUFFIX`) when there is one; with several linear
    candidates (an encoder), all their validation probabilities
    (:attr:`Search.linears_val`)."""
    rec = json.loads(record.read_text(encoding="utf-8"))
    arrays = np.load(record.with_name(record.stem + "_candidates.npz"))
    kinds, graph_of, full, g = [], [], [], -1
    for row in rec["candidates"]:
        kinds.append(row["predictor"])
        g += row["predictor"] == "graph"
        graph_of.append(-1 if row["predictor"] == "linear" else g)
        if row["predictor"] == "graph" and not row["stopped_at"]:
            full.append(g)
    grid_path = record.with_name(record.stem + GRID_SUFFIX)
    grid_val = None
    if grid_path.is_file():
        grid = np.load(grid_path)
        if not np.array_equal(grid["val_labels"], arrays["val_labels"]):
            raise ValueError(f"{grid_path.name}: validation documents differ from the record's")
        grid_val = grid["val_scores"].astype(np.float64)
    linears_val = None
    if kinds.count("linear") > 1:
        linears_val = np.asarray(arrays["linears_val_proba"], dtype=np.float64)
        if len(linears_val) != kinds.count("linear"):
            raise ValueError(f"{record.name}: {kinds.count('linear')} linear candidates, "
                             f"{len(linears_val)} in linears_val_proba")
        if grid_val is not None:
            raise ValueError(f"{record.name}: a baseline grid file for a search with several "
                             f"linear candidates (its grids: {LINEARS_GRID_SUFFIX})")
    linears_grid = load_linears_grid(record, rec, arrays) if linears_val is not None else None
    return Search(rec["dataset"], int(rec["seed"]), kinds + ["ensemble"], graph_of + [-1],
                  arrays["val_labels"], baseline_val_proba(arrays), arrays["graph_val_proba"],
                  chosen=next(k for k, row in enumerate(rec["candidates"]) if row["chosen"]),
                  rule=rule_of(rec["choice"]), full=full, grid_val=grid_val,
                  linears_val=linears_val, linears_grid=linears_grid)


def candidate_probs(s: Search, choose_on: np.ndarray, rechoose: bool = True
                    ) -> list[Callable[[np.ndarray], np.ndarray]]:
    """Per candidate, a function from validation positions to its probabilities there; the
    baseline (with the grid file and ``rechoose``: its grid point and temperature,
    :func:`baseline_on`) and the combinations' weights chosen on positions ``choose_on``; the
    combinations mix each graph candidate with that baseline.  The last, ``ensemble``: the
    mean of the full-length graph candidates (:attr:`Search.full`) combined with the
    baseline.  With several linear candidates (:attr:`Search.linears_val`) each linear row is
    its recorded probabilities, and "the baseline" above is the partner chosen on
    ``choose_on`` (:func:`partner_on`)."""
    lin = baseline_on(s, choose_on, rechoose)
    linears = None if s.linears_val is None else linears_on(s, choose_on, rechoose)
    out: list[Callable[[np.ndarray], np.ndarray]] = []
    weights: dict[int, float] = {}
    j = -1  # the linear rows, in order
    for kind, g in zip(s.kinds, s.graph_of):
        j += kind == "linear"
        if kind == "ensemble":
            mean = s.graph_val[s.full].mean(axis=0) if s.full else lin
            w = choose_weight(mean[choose_on], lin[choose_on], s.y[choose_on])[0]
            out.append(lambda idx, m=mean, w=w: mix(m[idx], lin[idx], w))
        elif kind == "linear" and linears is not None:
            out.append(lambda idx, p=linears[j]: p[idx])
        elif kind == "linear":
            out.append(lambda idx: lin[idx])
        elif kind == "graph":
            out.append(lambda idx, g=g: s.graph_val[g][idx])
        else:
            if g not in weights:
                weights[g] = choose_weight(s.graph_val[g][choose_on], lin[choose_on],
                                           s.y[choose_on])[0]
            out.append(lambda idx, g=g, w=weights[g]: mix(s.graph_val[g][idx], lin[idx], w))
    return out


def document_losses(s: Search, probs: list[Callable[[np.ndarray], np.ndarray]],
                    idx: np.ndarray) -> list[np.ndarray]:
    """Per candidate the search offers (all but the ensemble), its per-document log-loss on
    validation positions ``idx``: what :func:`choose_index` compares."""
    return [per_document_log_loss(s.y[idx], probs[k](idx))
            for k, kind in enumerate(s.kinds) if kind != "ensemble"]


def document_correct(s: Search, probs: list[Callable[[np.ndarray], np.ndarray]],
                     idx: np.ndarray) -> list[np.ndarray]:
    """As :func:`document_losses`, whether each candidate is right on each document (what a
    rule with ``accuracy_gain`` counts)."""
    return [per_document_correct(s.y[idx], probs[k](idx))
            for k, kind in enumerate(s.kinds) if kind != "ensemble"]


def choose(rule: str, s: Search, probs: list[Callable[[np.ndarray], np.ndarray]],
           idx: np.ndarray, losses: list[np.ndarray] | None = None,
           correct: list[np.ndarray] | None = None, protected: int | None = None) -> int:
    """The candidate ``rule`` picks on validation positions ``idx`` (ties: the earliest);
    ``losses``, ``correct``: :func:`document_losses`, :func:`document_correct` on ``idx`` when
    already computed.  The library's rules protect ``protected`` (default:
    :func:`protected_index` on ``idx``)."""
    if rule in BY_NAME:  # the library's rule, on the candidates the search offers
        if losses is None:
            losses = document_losses(s, probs, idx)
        if BY_NAME[rule].accuracy_gain and correct is None:
            correct = document_correct(s, probs, idx)
        if protected is None:
            protected = protected_index(s, idx)
        return choose_index(losses, protected, BY_NAME[rule],
                            correct if BY_NAME[rule].accuracy_gain else None)
    allowed = [k for k, kind in enumerate(s.kinds)
               if not (rule.endswith("no graph-only") and kind == "graph")
               and (kind != "ensemble" or rule.endswith("with the ensemble"))]
    y = s.y[idx]
    if rule.startswith("accuracy"):
        scores = [float((probs[k](idx).argmax(1) == y).mean()) for k in allowed]
        return allowed[int(np.argmax(scores))]  # argmax: the first of equals
    losses_ = [mean_log_loss(y, probs[k](idx)) for k in allowed]
    return allowed[int(np.argmin(losses_))]


def held_out(s: Search, repetitions: int, rechoose: bool = True,
             rules: tuple[str, ...] = RULES) -> dict[str, dict[str, float]]:
    """Per rule (of ``rules``): mean accuracy on the scoring half, and how often it chose each
    kind (``rechoose``: see :func:`candidate_probs`)."""
    n = len(s.y)
    acc: dict[str, list[float]] = {r: [] for r in rules}
    kinds = {r: dict.fromkeys(KINDS, 0) for r in rules}
    for rep in range(repetitions):
        perm = np.random.default_rng(rep).permutation(n)
        halves = (perm[: n // 2], perm[n // 2:])
        for a, b in (halves, halves[::-1]):
            probs = candidate_probs(s, a, rechoose)
            losses = document_losses(s, probs, a)
            correct = document_correct(s, probs, a) \
                if any(r in BY_NAME and BY_NAME[r].accuracy_gain for r in rules) else None
            protected = protected_index(s, a, rechoose)
            for rule in rules:
                k = choose(rule, s, probs, a, losses, correct, protected)
                acc[rule].append(float((probs[k](b).argmax(1) == s.y[b]).mean()))
                kinds[rule][s.kinds[k]] += 1
    total = 2 * repetitions
    return {r: {"accuracy": float(np.mean(acc[r])),
                **{kind: count / total for kind, count in kinds[r].items()}} for r in rules}


def full_validation_choice(s: Search, rule: str) -> int:
    """The candidate ``rule`` picks on all validation documents (the search's own setting)."""
    idx = np.arange(len(s.y))
    return choose(rule, s, candidate_probs(s, idx), idx)


def verdict(by_corpus: dict[str, dict[str, float]]) -> tuple[str, dict[str, float]]:
    """The first study's decision (module docstring): ``(rule, mean held-out accuracy per
    rule)``."""
    means = {r: float(np.mean([v[r] for v in by_corpus.values()])) for r in FIRST_STUDY_RULES}
    best = max(FIRST_STUDY_RULES, key=lambda r: means[r])
    if best == "accuracy" or means[best] <= means["accuracy"]:
        return "accuracy", means
    up = sum(v[best] > v["accuracy"] for v in by_corpus.values())
    down = sum(v[best] < v["accuracy"] for v in by_corpus.values())
    return (best if up >= down else "accuracy"), means


def worst_corpus(by_corpus: dict[str, dict[str, float]], rule: str) -> tuple[str, float]:
    """The corpus where ``rule`` is furthest below (or least above) ``baseline``, and by how
    much (``rule - baseline``, a fraction)."""
    return min(((c, v[rule] - v[BASELINE]) for c, v in by_corpus.items()), key=lambda t: t[1])


def decide(by_corpus: dict[str, dict[str, float]], baseline_share: dict[str, float],
           names: tuple[str, ...] = SECOND_STUDY) -> tuple[str, list[str]]:
    """The second study's decision (module docstring) among ``names`` (the third study's:
    the same among its rules): ``(rule, the eligible rules)``.

    ``by_corpus[corpus][rule]``: held-out accuracy; ``baseline_share[rule]``: the share of
    all choices in which the rule answered with the baseline."""
    eligible = [r for r in names if worst_corpus(by_corpus, r)[1] >= -TOLERANCE]
    means = {r: float(np.mean([v[r] for v in by_corpus.values()])) for r in eligible}
    top = max(means.values())
    tied = [r for r in eligible if means[r] >= top - TIE]
    # the most conservative of the tied; max keeps the first (earlier in LIBRARY_RULES) of equals
    return max(tied, key=lambda r: baseline_share[r]), eligible


@dataclass
class Replay:
    """One replay's figures: ``by_corpus[corpus][rule]`` held-out accuracy (mean over the
    corpus's searches), ``share[rule][kind]`` the share of all choices answered with each
    kind, ``means[rule]`` the mean over corpora, the decision and the eligible rules."""

    by_corpus: dict[str, dict[str, float]]
    share: dict[str, dict[str, float]]
    means: dict[str, float]
    chosen: str
    eligible: list[str]


def summarise(searches: list[Search], results: list[dict[str, dict[str, float]]],
              rules: tuple[str, ...] = RULES, names: tuple[str, ...] = SECOND_STUDY
              ) -> Replay:
    """The figures of one replay (:func:`held_out` per search, over ``rules``), by group
    (:attr:`Search.group`), and its decision among ``names``."""
    corpora = list(dict.fromkeys(s.group for s in searches))
    by_corpus = {c: {r: float(np.mean([res[r]["accuracy"] for s, res in zip(searches, results)
                                       if s.group == c])) for r in rules} for c in corpora}
    share = {r: {k: float(np.mean([res[r][k] for res in results])) for k in KINDS}
             for r in rules}
    chosen, eligible = decide(by_corpus, {r: share[r]["linear"] for r in rules}, names)
    means = {r: float(np.mean([v[r] for v in by_corpus.values()])) for r in rules}
    return Replay(by_corpus, share, means, chosen, eligible)


def render(searches: list[Search], results: list[dict[str, dict[str, float]]],
           repetitions: int, command: str, notes: str = "",
           recorded: list[dict[str, dict[str, float]]] | None = None) -> str:
    """The report.  ``results``: the replay that decides (with the searches' grid files, the
    baseline re-chosen on each choosing half); ``recorded``: with grid files, the same replay
    with the recorded baseline, shown beside it."""
    main = summarise(searches, results)
    old = summarise(searches, recorded) if recorded is not None else None
    corpora, by_corpus, share, means = list(main.by_corpus), main.by_corpus, main.share, \
        main.means
    chosen, eligible = main.chosen, main.eligible
    first, _ = verdict(by_corpus)
    rechosen = all(s.grid_val is not None for s in searches)
    how = ("the baseline's classifier (its grid point) and its temperature are chosen again on "
           "that half, by the baseline's own rule, from every grid point's validation scores "
           "(`*_auto_baseline_grid.npz`, written by `benchmarks/baseline_grid_records.py`), and "
           "the combinations mix the graph candidates with that baseline"
           if rechosen else
           "the baseline is the recorded one (its classifier and temperature chosen on all "
           "the validation documents)")
    lines = ["# `--auto`'s selection rule, studied on validation documents", "",
             f"Command: `{command}`", "",
             "Each recorded search's validation documents split at random into halves, "
             f"{repetitions} times; a rule chooses on one half (combination weights too) and is "
             f"scored on the other, then the halves swap; {how} "
             "(`benchmarks/selection_study.py` says why and how, and names the rules). Test "
             "data is not read.", ""]
    head = "| corpus | searches | validation documents per search | `baseline` held-out " \
        "accuracy (%) |"
    if old is not None:
        head += " the same, recorded baseline (%) |"
    lines += [head, "|---|---|---|---|" + ("---|" if old is not None else "")]
    for c in corpora:
        sizes = [len(s.y) for s in searches if s.dataset == c]
        size = (f"{min(sizes)}" if min(sizes) == max(sizes)
                else f"{min(sizes)}-{max(sizes)}")
        lines.append(f"| {c} | {len(sizes)} | {size} | {100 * by_corpus[c][BASELINE]:.2f} |"
                     + (f" {100 * old.by_corpus[c][BASELINE]:.2f} |" if old is not None
                        else ""))
    lines += ["", "Held-out accuracy of each rule minus the baseline's, in points, per corpus "
              "(mean over its searches) and on average over corpora; the worst corpus; the "
              "share of all choices answered with the baseline. Rules above the *first study* "
              "row are the library's (`gfbgcn.text.search.selection`), eligible (✓) when no "
              f"corpus is more than {100 * TOLERANCE:.1f} points below the baseline; below it, "
              "the first study's other rules.", "",
              "| rule | " + " | ".join(corpora) + " | **mean** | worst corpus | baseline "
              "answers | eligible |", "|---|" + "---|" * (len(corpora) + 4)]
    for r in RULES:
        if r == FIRST_STUDY[0]:
            lines.append("| *first study* |" + " |" * (len(corpora) + 4))
        cells = [f"{100 * (by_corpus[c][r] - by_corpus[c][BASELINE]):+.2f}" for c in corpora]
        corpus, gap = worst_corpus(by_corpus, r)
        mark = ("✓" if r in eligible else "✗") if r in BY_NAME else ""
        name = f"**`{r}`**" if r == chosen else f"`{r}`"
        lines.append(f"| {name} | " + " | ".join(cells)
                     + f" | **{100 * (means[r] - means[BASELINE]):+.2f}** | {corpus} "
                     f"{100 * gap:+.2f} | {100 * share[r]['linear']:.1f} % | {mark} |")
    lines += ["", f"`baseline`'s own mean held-out accuracy over corpora: "
              f"{100 * means[BASELINE]:.2f} %.", ""]
    same = sum(full_validation_choice(s, s.rule) == s.chosen for s in searches)
    rules = ", ".join(f"`{r}`" for r in sorted({s.rule for s in searches}))
    lines += [f"Check: the rule of the records' answers ({rules}) on all validation "
              f"documents picks those answers in {same} of {len(searches)} searches."]
    if rechosen:
        checks = [check_grid(s) for s in searches]
        lines += ["", f"Check of the grid files: the baseline re-chosen on all validation "
                  f"documents is the recorded grid point in {sum(c[0] for c in checks)} of "
                  f"{len(searches)} searches, its probabilities at most "
                  f"{max(c[1] for c in checks):.1g} from the recorded ones (the files keep the "
                  f"scores as float32; `baseline_grid_records.py` checked the float64 ones "
                  f"before writing them)."]
    lines += ["", "What each rule chose (share of all choices, over all searches):", "",
              "| rule | baseline | graph only | combination | ensemble |", "|---|---|---|---|---|"]
    for r in RULES:
        lines.append(f"| `{r}` | " + " | ".join(f"{100 * share[r][k]:.1f} %" for k in KINDS)
                     + " |")
    if old is not None:
        lines += ["", "The two replays side by side: each rule's mean over corpora minus "
                  "`baseline`'s and its worst corpus (points), and its share of baseline "
                  "answers, with the baseline as recorded (chosen on all validation documents) "
                  "and re-chosen on each choosing half (the table above).", "",
                  "| rule | recorded: mean | worst corpus | baseline answers | eligible | "
                  "re-chosen: mean | worst corpus | baseline answers | eligible |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for r in RULES:
            cells = []
            for rep in (old, main):
                corpus, gap = worst_corpus(rep.by_corpus, r)
                mark = ("✓" if r in rep.eligible else "✗") if r in BY_NAME else ""
                cells += [f"{100 * (rep.means[r] - rep.means[BASELINE]):+.2f}",
                          f"{corpus} {100 * gap:+.2f}", f"{100 * rep.share[r]['linear']:.1f} %",
                          mark]
            lines.append(f"| `{r}` | " + " | ".join(cells) + " |")
        lines += ["", f"`baseline`'s mean held-out accuracy over corpora: "
                  f"{100 * old.means[BASELINE]:.2f} % recorded, {100 * means[BASELINE]:.2f} % "
                  f"re-chosen. The decision on the replay with the recorded baseline: "
                  f"`{old.chosen}`."]
    decided = BY_NAME[chosen]
    on = " on the replay with the baseline re-chosen on each half" if old is not None else ""
    lines += ["", f"The first study's decision (`accuracy` against the others), on these "
              f"figures: `{first}`.", "",
              f"**Decision** (rule fixed in the script before the new rules were run){on}: "
              f"`{chosen}`.", "",
              f"The library's rule (`gfbgcn.text.search.selection.RULE`) is `{RULE.name}`: "
              + ("the decided one." if RULE == decided else
                 "**not this study's decision**: the library's rule is the third study's "
                 "decision when `selection-rules-encoder.md` says so (it also replays the "
                 "searches with an encoder), otherwise set RULE to the decision and re-run."),
              ""]
    return "\n".join(lines) + (f"\n{notes.rstrip()}\n" if notes else "")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=Path, default=ROOT / "docs/results/raw/vs-linear")
    parser.add_argument("--report", type=Path, default=ROOT / "docs/results/selection-rules.md")
    parser.add_argument("--repetitions", type=int, default=100)
    args = parser.parse_args(argv)
    from _report import command_line
    from gfbgcn.core.io import atomic_write_text

    records = sorted(p for p in args.records.glob("*_auto.json")
                     if p.with_name(p.stem + "_candidates.npz").is_file())
    if not records:
        raise SystemExit(f"{args.records}: no *_auto.json with its _candidates.npz")
    searches = [load_search(p) for p in records]
    gridded = sum(s.grid_val is not None for s in searches)
    if gridded not in (0, len(searches)):
        raise SystemExit(f"{args.records}: grid files ({GRID_SUFFIX}) for {gridded} of "
                         f"{len(searches)} searches; write them all "
                         f"(benchmarks/baseline_grid_records.py) or none")
    results = [held_out(s, args.repetitions) for s in searches]
    recorded = [held_out(s, args.repetitions, rechoose=False) for s in searches] \
        if gridded else None
    notes = args.report.with_name(args.report.stem + "_notes.md")  # kept beside the table
    atomic_write_text(args.report, render(searches, results, args.repetitions, command_line(),
                                          notes.read_text(encoding="utf-8")
                                          if notes.is_file() else "", recorded))
    print(f"wrote {args.report}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

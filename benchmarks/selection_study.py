"""By which rule should ``--auto`` pick its answer?  A study on validation documents only.

``--auto`` (:mod:`gfbgcn.text.search.auto`) chooses among the linear baseline, every trained
graph candidate and every graph candidate combined with the baseline (weight chosen by
validation log-loss): about 19 candidates, picked by validation accuracy on a few hundred
documents.  The maximum of many noisy estimates rewards luck, and a graph-only candidate is
its own combination at weight 1, so offering it separately is one more draw per training.

This study replays the searches recorded by ``benchmarks/vs_linear.py`` (the candidate table in
``*_auto.json``, the validation probabilities in ``*_auto_candidates.npz``) on their validation
documents alone.  Per search and repetition the validation documents are split at random into
halves A and B; a rule chooses on A (the combinations' weights chosen on A as well) and the
chosen candidate is scored on B, then the halves swap.  The rules:

* ``accuracy`` (the search's rule when the study was written): highest accuracy, ties to the
  earliest candidate (the baseline first);
* ``accuracy, no graph-only``: the same among the baseline and the combinations;
* ``log-loss``: lowest log-loss (mean negative log-probability of the true class), ties to the
  earliest;
* ``log-loss, no graph-only``;
* ``accuracy, with the ensemble``: ``accuracy`` with one more candidate, last: the mean of the
  probabilities of the graph candidates that the search did not stop early, combined with the
  baseline (weight chosen by log-loss, as every combination's).  No training is added.

The candidates themselves (which graphs and models were trained) were chosen by the search on
all validation documents; that is common to all rules.

Decision, fixed before the study was first run: the rule with the highest held-out accuracy
(mean over corpora of each corpus's mean over its searches and repetitions) replaces the
search's rule when it is higher than ``accuracy`` and higher on at least as many corpora as it
is lower; otherwise the search keeps its rule.  Test labels and predictions are not read.

    python benchmarks/selection_study.py --records docs/results/raw/vs-linear \\
        --report docs/results/selection-rules.md
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gfbgcn.core.metrics import mean_log_loss
from gfbgcn.text.predict.combined import choose_weight, mix

ROOT = Path(__file__).resolve().parent.parent
RULES = ("accuracy", "accuracy, no graph-only", "log-loss", "log-loss, no graph-only",
         "accuracy, with the ensemble")


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


def load_search(record: Path) -> Search:
    """A search from its ``*_auto.json`` record and ``*_auto_candidates.npz`` arrays."""
    rec = json.loads(record.read_text(encoding="utf-8"))
    arrays = np.load(record.with_name(record.stem + "_candidates.npz"))
    kinds, graph_of, full, g = [], [], [], -1
    for row in rec["candidates"]:
        kinds.append(row["predictor"])
        g += row["predictor"] == "graph"
        graph_of.append(-1 if row["predictor"] == "linear" else g)
        if row["predictor"] == "graph" and not row["stopped_at"]:
            full.append(g)
    return Search(rec["dataset"], int(rec["seed"]), kinds + ["ensemble"], graph_of + [-1],
                  arrays["val_labels"], arrays["linear_val_proba"], arrays["graph_val_proba"],
                  chosen=next(k for k, row in enumerate(rec["candidates"]) if row["chosen"]),
                  rule="log-loss" if "log-loss" in rec["choice"].get("rule", "") else "accuracy",
                  full=full)


def candidate_probs(s: Search, choose_on: np.ndarray) -> list[Callable[[np.ndarray], np.ndarray]]:
    """Per candidate, a function from validation positions to its probabilities there; the
    combinations' weights chosen on positions ``choose_on``.  The last, ``ensemble``: the mean
    of the full-length graph candidates (:attr:`Search.full`) combined with the baseline."""
    out: list[Callable[[np.ndarray], np.ndarray]] = []
    weights: dict[int, float] = {}
    for kind, g in zip(s.kinds, s.graph_of):
        if kind == "ensemble":
            mean = s.graph_val[s.full].mean(axis=0) if s.full else s.linear_val
            w = choose_weight(mean[choose_on], s.linear_val[choose_on], s.y[choose_on])[0]
            out.append(lambda idx, m=mean, w=w: mix(m[idx], s.linear_val[idx], w))
        elif kind == "linear":
            out.append(lambda idx: s.linear_val[idx])
        elif kind == "graph":
            out.append(lambda idx, g=g: s.graph_val[g][idx])
        else:
            if g not in weights:
                weights[g] = choose_weight(s.graph_val[g][choose_on], s.linear_val[choose_on],
                                           s.y[choose_on])[0]
            out.append(lambda idx, g=g, w=weights[g]: mix(s.graph_val[g][idx],
                                                         s.linear_val[idx], w))
    return out


def choose(rule: str, s: Search, probs: list[Callable[[np.ndarray], np.ndarray]],
           idx: np.ndarray) -> int:
    """The candidate ``rule`` picks on validation positions ``idx`` (ties: the earliest)."""
    allowed = [k for k, kind in enumerate(s.kinds)
               if not (rule.endswith("no graph-only") and kind == "graph")
               and (kind != "ensemble" or rule.endswith("with the ensemble"))]
    y = s.y[idx]
    if rule.startswith("accuracy"):
        scores = [float((probs[k](idx).argmax(1) == y).mean()) for k in allowed]
        return allowed[int(np.argmax(scores))]  # argmax: the first of equals
    losses = [mean_log_loss(y, probs[k](idx)) for k in allowed]
    return allowed[int(np.argmin(losses))]


def held_out(s: Search, repetitions: int) -> dict[str, dict[str, float]]:
    """Per rule: mean accuracy on the scoring half, and how often it chose each kind."""
    n = len(s.y)
    acc = {r: [] for r in RULES}
    kinds = {r: {"linear": 0, "graph": 0, "graph+linear": 0, "ensemble": 0} for r in RULES}
    for rep in range(repetitions):
        perm = np.random.default_rng(rep).permutation(n)
        halves = (perm[: n // 2], perm[n // 2:])
        for a, b in (halves, halves[::-1]):
            probs = candidate_probs(s, a)
            for rule in RULES:
                k = choose(rule, s, probs, a)
                acc[rule].append(float((probs[k](b).argmax(1) == s.y[b]).mean()))
                kinds[rule][s.kinds[k]] += 1
    total = 2 * repetitions
    return {r: {"accuracy": float(np.mean(acc[r])),
                **{kind: count / total for kind, count in kinds[r].items()}} for r in RULES}


def full_validation_choice(s: Search, rule: str) -> int:
    """The candidate ``rule`` picks on all validation documents (the search's own setting)."""
    idx = np.arange(len(s.y))
    return choose(rule, s, candidate_probs(s, idx), idx)


def verdict(by_corpus: dict[str, dict[str, float]]) -> tuple[str, dict[str, float]]:
    """The decision of the module docstring: ``(rule, mean held-out accuracy per rule)``."""
    means = {r: float(np.mean([v[r] for v in by_corpus.values()])) for r in RULES}
    best = max(RULES, key=lambda r: means[r])
    if best == "accuracy" or means[best] <= means["accuracy"]:
        return "accuracy", means
    up = sum(v[best] > v["accuracy"] for v in by_corpus.values())
    down = sum(v[best] < v["accuracy"] for v in by_corpus.values())
    return (best if up >= down else "accuracy"), means


def render(searches: list[Search], results: list[dict[str, dict[str, float]]],
           repetitions: int, command: str, notes: str = "") -> str:
    corpora = list(dict.fromkeys(s.dataset for s in searches))
    by_corpus = {c: {r: float(np.mean([res[r]["accuracy"] for s, res in zip(searches, results)
                                       if s.dataset == c])) for r in RULES} for c in corpora}
    chosen, means = verdict(by_corpus)
    lines = ["# `--auto`'s selection rule, studied on validation documents", "",
             f"Command: `{command}`", "",
             "Each recorded search's validation documents split at random into halves, "
             f"{repetitions} times; a rule chooses on one half (combination weights too) and is "
             "scored on the other, then the halves swap (`benchmarks/selection_study.py` says "
             "why and how). Held-out accuracy in %, mean over a corpus's searches; the other "
             "columns are differences from `accuracy` in points. Test data is not read.", "",
             "| corpus | searches | " + " | ".join(f"`{r}`" for r in RULES) + " |",
             "|---|---|" + "---|" * len(RULES)]
    for c in corpora:
        n = sum(s.dataset == c for s in searches)
        base = by_corpus[c]["accuracy"]
        cells = [f"{100 * base:.2f}"] + [f"{100 * (by_corpus[c][r] - base):+.2f}"
                                         for r in RULES[1:]]
        lines.append(f"| {c} | {n} | " + " | ".join(cells) + " |")
    base = means["accuracy"]
    lines.append("| **mean over corpora** | | " + " | ".join(
        [f"**{100 * base:.2f}**"] + [f"**{100 * (means[r] - base):+.2f}**" for r in RULES[1:]])
        + " |")
    same = sum(full_validation_choice(s, s.rule) == s.chosen for s in searches)
    rules = ", ".join(f"`{r}`" for r in sorted({s.rule for s in searches}))
    lines += ["", f"Check: the rule of the records' answers ({rules}) on all validation "
              f"documents picks those answers in {same} of {len(searches)} searches."]
    lines += ["", "What each rule chose (share of all choices, over all searches):", "",
              "| rule | baseline | graph only | combination | ensemble |", "|---|---|---|---|---|"]
    for r in RULES:
        share = {k: np.mean([res[r][k] for res in results])
                 for k in ("linear", "graph", "graph+linear", "ensemble")}
        lines.append(f"| `{r}` | {100 * share['linear']:.1f} % | {100 * share['graph']:.1f} % "
                     f"| {100 * share['graph+linear']:.1f} % | {100 * share['ensemble']:.1f} % |")
    lines += ["", f"**Decision** (rule fixed in the script before it was run): `{chosen}`" +
              (" (the search's rule stays)." if chosen == "accuracy" else "."), ""]
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
    results = [held_out(s, args.repetitions) for s in searches]
    notes = args.report.with_name(args.report.stem + "_notes.md")  # kept beside the table
    atomic_write_text(args.report, render(searches, results, args.repetitions, command_line(),
                                          notes.read_text(encoding="utf-8")
                                          if notes.is_file() else ""))
    print(f"wrote {args.report}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

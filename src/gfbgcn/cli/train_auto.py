"""What `gfbgcn train` prints of a user's own file: the linear baseline beside the result,
and `--auto`'s search (:mod:`gfbgcn.text.search.auto`)."""

from __future__ import annotations

import math
from typing import Any

from gfbgcn.text.linear.baseline import BaselineResult
from gfbgcn.text.search.auto import AutoResult
from gfbgcn.text.search.selection import RULE, SelectionRule


def print_beside(name: str, test: dict[str, Any], b: BaselineResult,
                 hint: str = " (try --auto)") -> None:
    """The baseline's test accuracy and macro F1 beside the graph model's (multi-label: micro
    F1, macro F1 and subset accuracy); a note if it wins (``hint``: what to do about it,
    appended; single-label).

    Args:
        name: what ``test`` belongs to (a model name, ``auto``).
        test: its test metrics.
        b: the fitted baseline.
        hint: appended to the note when the baseline wins.
    """
    if b.test is None:  # no labelled test document: nothing to compare
        return
    if b.threshold is not None:
        _print_beside_multi_label(name, test, b)  # no hint: --auto is single-label
        return
    acc, f1 = test["accuracy"], test["macro_f1"]
    bacc, bf1 = b.test["accuracy"], b.test["macro_f1"]
    print(f"baseline {baseline_name(b)} ({b.model.description}): test accuracy {bacc:.4f} | "
          f"macro F1 {bf1:.4f}   [{name}: {acc:.4f} | {f1:.4f}]")
    if bacc > acc:
        print(f"note: the linear baseline beats {name} on this corpus by "
              f"{100 * (bacc - acc):.1f} accuracy points{hint}")


def _print_beside_multi_label(name: str, test: dict[str, Any], b: BaselineResult) -> None:
    """:func:`print_beside` of a multi-label run: micro F1, macro F1 and subset accuracy."""
    assert b.test is not None  # print_beside has checked
    keys = ("micro_f1", "macro_f1", "subset_accuracy")
    ours, theirs = (" | ".join(f"{m[k]:.4f}" for k in keys) for m in (test, b.test))
    print(f"baseline {BASELINE_NAME}, one model per label ({b.model.description}, threshold "
          f"{b.threshold:.2f}): test micro F1 | macro F1 | subset accuracy {theirs}   "
          f"[{name}: {ours}]")
    if b.test["micro_f1"] > test["micro_f1"]:
        print(f"note: the linear baseline beats {name} on this corpus by "
              f"{100 * (b.test['micro_f1'] - test['micro_f1']):.1f} micro-F1 points")


#: What is printed instead of test metrics when no test document carries a label.
NO_TEST_LINE = "no labelled test documents: no test metrics"

#: How the baseline is named in printed lines.
BASELINE_NAME = "word+char n-gram TF-IDF + linear"


def baseline_name(b: BaselineResult) -> str:
    """The baseline's name in printed lines: its features (with an encoder's embeddings
    beside the n-grams, it says so) and a linear classifier."""
    return BASELINE_NAME.replace("TF-IDF", "TF-IDF + encoder embeddings") \
        if b.model.uses_encoder else BASELINE_NAME


def _searched(auto) -> str:
    """``2 candidates trained, each also combined with the baseline,``: the count --budget
    limits, whatever the number of table rows."""
    plural = "s" if auto.trained != 1 else ""
    combined = " beside the linear baseline, each also combined with it," \
        if auto.baseline is not None else ""
    return f"{auto.trained} candidate{plural} trained{combined}"


def why_linear(rule: SelectionRule) -> str:
    """Why the answer is the linear model, under ``rule``."""
    if math.isinf(rule.z):  # the protected candidate always
        return ("the selection rule keeps the linear model, graph candidates are listed, not "
                "chosen (docs/results/selection-rules-encoder.md)")
    return f"no graph model passed the selection rule ({rule.name}) against it"


def print_auto(auto: AutoResult) -> None:
    """``gfbgcn train --auto``: the candidates' table, the choice and its test metrics."""
    print(auto.aligned(), end="")
    c = auto.chosen
    test = c.test
    if auto.chose_baseline:
        best = auto.best_graph_only()
        print(f"auto chose the {c.model_label}: {why_linear(RULE)} (validation log-loss "
              f"{c.val_log_loss:.4f}, accuracy "
              f"{c.val_accuracy:.4f}; best graph model {best.model_label} with "
              f"{best.graph_setting.label()}: accuracy {best.val_accuracy:.4f}; "
              f"{_searched(auto)} in {auto.seconds:.0f} s)")
    else:
        name = f"{c.model_label}{' + linear' if c.predictor != 'graph' else ''}"
        print(f"auto chose {name} with {c.graph_setting.label()} (validation log-loss "
              f"{c.val_log_loss:.4f}, accuracy {c.val_accuracy:.4f}; {_searched(auto)} in "
              f"{auto.seconds:.0f} s)")
    if not test:  # no labelled test document
        print(NO_TEST_LINE)
        return
    print(f"test accuracy {test['accuracy']:.4f} | macro F1 {test['macro_f1']:.4f}")
    if auto.baseline is not None and not auto.chose_baseline:  # not with --no-baseline
        print_beside("auto", test, auto.baseline, hint="")  # --auto tried the combinations

"""What `gfbgcn train` prints of a user's own file: the linear baseline beside the result,
and `--auto`'s search (:mod:`gfbgcn.text.search.auto`)."""

from __future__ import annotations

from typing import Any

from gfbgcn.text.predict.baseline import BaselineResult
from gfbgcn.text.search.auto import AutoResult


def print_beside(name: str, test: dict[str, Any], b: BaselineResult,
                 hint: str = " (try --auto)") -> None:
    """The baseline's test accuracy and macro F1 beside the graph model's; a note if it wins
    (``hint``: what to do about it, appended).

    Args:
        name: what ``test`` belongs to (a model name, ``auto``).
        test: its test metrics.
        b: the fitted baseline.
        hint: appended to the note when the baseline wins.
    """
    acc, f1 = test["accuracy"], test["macro_f1"]
    bacc, bf1 = b.test["accuracy"], b.test["macro_f1"]
    print(f"baseline {BASELINE_NAME} ({b.model.description}): test accuracy {bacc:.4f} | "
          f"macro F1 {bf1:.4f}   [{name}: {acc:.4f} | {f1:.4f}]")
    if bacc > acc:
        print(f"note: the linear baseline beats {name} on this corpus by "
              f"{100 * (bacc - acc):.1f} accuracy points{hint}")


#: How the baseline is named in printed lines.
BASELINE_NAME = "word+char n-gram TF-IDF + linear"


def _searched(auto) -> str:
    """``2 candidates trained, each also combined with the baseline,``: the count --budget
    limits, whatever the number of table rows."""
    plural = "s" if auto.trained != 1 else ""
    combined = " beside the linear baseline, each also combined with it," \
        if auto.baseline is not None else ""
    return f"{auto.trained} candidate{plural} trained{combined}"


def print_auto(auto: AutoResult) -> None:
    """``gfbgcn train --auto``: the candidates' table, the choice and its test metrics."""
    print(auto.aligned(), end="")
    c = auto.chosen
    test = c.test
    if auto.chose_baseline:
        best = auto.best_graph_only()
        print(f"auto chose the {c.model_label}: no graph model beat it on validation "
              f"(validation accuracy {c.val_accuracy:.4f}; best graph model {best.model_label} "
              f"with {best.graph_setting.label()}: {best.val_accuracy:.4f}; {_searched(auto)} in "
              f"{auto.seconds:.0f} s)")
    else:
        name = f"{c.model_label}{' + linear' if c.predictor != 'graph' else ''}"
        print(f"auto chose {name} with {c.graph_setting.label()} (validation accuracy "
              f"{c.val_accuracy:.4f}; {_searched(auto)} in {auto.seconds:.0f} s)")
    print(f"test accuracy {test['accuracy']:.4f} | macro F1 {test['macro_f1']:.4f}")
    if auto.baseline is not None and not auto.chose_baseline:  # not with --no-baseline
        print_beside("auto", test, auto.baseline, hint="")  # --auto tried the combinations

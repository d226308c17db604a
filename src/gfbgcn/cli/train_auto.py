"""`gfbgcn train` on a user's own file: the linear baseline printed beside the result, and
`--auto` (:mod:`gfbgcn.text.search.auto`)."""

from __future__ import annotations

import argparse
from typing import Any

from gfbgcn.core.errors import OptionError
from gfbgcn.text.search.own_corpus import _combined_metrics, baseline_metrics
from gfbgcn.text.search.pacing import parse_budget
from gfbgcn.text.predict.baseline import BaselineResult, baseline_for_graph
from gfbgcn.text.predict.combined import mix


def add_own_corpus_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--no-baseline", action="store_true",
                        help="own corpus files: do not fit the linear baseline (word + char "
                        "n-gram TF-IDF, classifier chosen on validation) beside the graph model "
                        "(with --auto: nor try it or the models combined with it)")
    parser.add_argument("--auto", action="store_true",
                        help="choose graph settings and model on the validation split, against "
                        "the linear baseline (the answer when no graph model beats it on "
                        "validation); also tries each model combined with the baseline, and the "
                        "best one with --features wordllama when installed; --model, "
                        "--features, --min-freq, --window and --stop-words are then searched")
    parser.add_argument("--budget", type=budget_text, default=None, metavar="N|Nm",
                        help="--auto: at most N candidates trained (each is also tried combined "
                        "with the baseline, at no training cost), or N minutes (default: all, "
                        "about 14 with the embeddings extra)")


def budget_text(text: str) -> str:
    """argparse type of ``--budget``: checked as the command line is read (``N`` >= 1
    candidates, or ``Nm`` minutes > 0); the text itself is the classifier's ``budget``."""
    try:
        parse_budget(text)
    except OptionError:
        raise argparse.ArgumentTypeError(
            f"must be a number of candidates (e.g. 8) or minutes (e.g. 10m), got {text!r}"
        ) from None
    return text


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


def baseline_beside(corpus, graph, result) -> tuple[dict[str, Any], BaselineResult]:
    """Fit the baseline on the run's split, print it beside ``result``; the metrics entry and
    the fitted baseline."""
    from gfbgcn.text.tokenize.registry import resolve_tokenizer

    b = baseline_for_graph(corpus, graph, resolve_tokenizer(graph.tokenizer),
                           result.config.val_ratio, result.config.seed)
    print_beside(result.config.model, result.test, b)
    return {"baseline": baseline_metrics(b)}, b


def _searched(auto) -> str:
    """``2 candidates trained, each also combined with the baseline,``: the count --budget
    limits, whatever the number of table rows."""
    plural = "s" if auto.trained != 1 else ""
    combined = " beside the linear baseline, each also combined with it," \
        if auto.baseline is not None else ""
    return f"{auto.trained} candidate{plural} trained{combined}"


def train_auto(args: argparse.Namespace) -> int:
    """``gfbgcn train --auto``: search, print/save the table, write and save the chosen model.

    The search is :class:`gfbgcn.TextGCNClassifier` with ``auto=True``: its ``auto_`` holds the
    candidates, its ``save`` writes the chosen model (a combined one too)."""
    from gfbgcn.cli.options import classifier_from_args, corpus_from_args, run_provenance
    from gfbgcn.text.search.auto import chosen_summary
    from gfbgcn.text.train.run_files import write_run

    if args.multi_label:
        raise OptionError("--auto is single-label only (drop --multi-label)")
    clf = classifier_from_args(args)
    clf.check_settings()  # bad settings fail before the corpus is read
    corpus = corpus_from_args(args)
    auto = clf.fit_corpus(corpus).auto_
    table = auto.table()
    print(auto.aligned(), end="")
    c = auto.chosen
    test = c.test
    if auto.chose_baseline:
        best = auto.best_graph_only()
        print(f"auto chose the {c.model_label}: no graph model beat it on validation "
              f"(validation accuracy {c.val_accuracy:.4f}; best graph model {best.model_label} "
              f"with {best.setting.label()}: {best.val_accuracy:.4f}; {_searched(auto)} in "
              f"{auto.seconds:.0f} s)")
    else:
        name = f"{c.model_label}{' + linear' if c.predictor != 'graph' else ''}"
        print(f"auto chose {name} with {c.setting.label()} (validation accuracy "
              f"{c.val_accuracy:.4f}; {_searched(auto)} in {auto.seconds:.0f} s)")
    print(f"test accuracy {test['accuracy']:.4f} | macro F1 {test['macro_f1']:.4f}")
    extra: dict[str, Any] = {"auto": chosen_summary(auto)}
    probs = None
    if auto.baseline is not None:  # not with --no-baseline
        if not auto.chose_baseline:
            print_beside("auto", test, auto.baseline, hint="")  # --auto tried the combinations
        extra["baseline"] = baseline_metrics(auto.baseline)
    if c.predictor != "graph":  # test: the combination's; the graph part's beside it
        extra["graph_part"] = {"test": auto.result.test, "val": auto.result.val}
        extra.update(_combined_metrics(auto))
        probs = mix(auto.result.probabilities, auto.baseline.probabilities, c.weight)
    if args.out:
        out = write_run(args.out, auto.result, auto.graph, extra_metrics=extra,
                        extra_files={"auto.csv": table}, probabilities=probs,
                        baseline=None if auto.baseline is None else
                        auto.baseline.probabilities,
                        provenance=run_provenance(args, corpus))
        print(f"wrote {out} (candidates in auto.csv)")
    if args.save:
        print(f"saved model to {clf.save(args.save, transductive=False)}")
    return 0

"""``gfbgcn train`` on a user's own file: the baseline beside the result, and ``--auto``.

Kept apart from :mod:`gfbgcn.cli.text_verbs` so that the shared ``train`` verb only gains a few
lines: :func:`baseline_beside` after a normal run, :func:`train_auto` for ``--auto``.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from gfbgcn.text.predict.baseline import BaselineResult, baseline_for_graph


def add_own_corpus_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--no-baseline", action="store_true",
                        help="own corpus files: do not fit the TF-IDF + logistic regression "
                        "baseline beside the graph model")
    parser.add_argument("--auto", action="store_true",
                        help="choose graph settings and model on the validation split (also "
                        "tries each model combined with the TF-IDF + LR baseline, and the best "
                        "one with --features wordllama when installed); --model, --features, "
                        "--min-freq, --window and --stop-words are then searched")
    parser.add_argument("--budget", default=None, metavar="N|Nm",
                        help="--auto: at most N candidates, or N minutes (default: all, about "
                        "14 trainings with the embeddings extra)")


def is_own_file(dataset: str) -> bool:
    """A user's corpus file rather than one of the benchmark names."""
    from gfbgcn.text.corpus.benchmarks import canonical_name

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


def print_beside(name: str, test: dict[str, Any], b: BaselineResult) -> None:
    """The baseline's test accuracy and macro F1 beside the graph model's; a note if it wins."""
    acc, f1 = test["accuracy"], test["macro_f1"]
    bacc, bf1 = b.test["accuracy"], b.test["macro_f1"]
    print(f"baseline TF-IDF + LR (C={b.model.C:g}): test accuracy {bacc:.4f} | macro F1 "
          f"{bf1:.4f}   [{name}: {acc:.4f} | {f1:.4f}]")
    if bacc > acc:
        print(f"note: the TF-IDF + LR baseline beats {name} on this corpus by "
              f"{100 * (bacc - acc):.1f} accuracy points (try --auto)")


def baseline_beside(corpus, graph, result) -> dict[str, Any]:
    """Fit the baseline on the run's split, print it beside ``result``; the metrics entry."""
    from gfbgcn.text.predict.inductive import resolve_tokenizer

    b = baseline_for_graph(corpus, graph, resolve_tokenizer(graph.tokenizer),
                           result.config.val_ratio, result.config.seed)
    print_beside(result.config.model, result.test, b)
    return {"baseline": baseline_metrics(b)}


def train_auto(args: argparse.Namespace) -> int:
    """``gfbgcn train --auto``: search, print/save the table, write and save the chosen model."""
    from gfbgcn.text.auto.search import chosen_summary, parse_budget, run_auto
    from gfbgcn.cli.text_verbs import corpus_from_args, train_config_from_args
    from gfbgcn.cli.tokenizer_options import fail, tokenization_from_args
    from gfbgcn.text.train.full_batch import write_run

    if args.multi_label:
        raise fail("--auto is single-label only (drop --multi-label)")
    try:
        budget = parse_budget(args.budget) if args.budget is not None else None
    except ValueError as err:
        raise fail(str(err)) from None
    tokenizer, stop_words = tokenization_from_args(args)
    base = replace(train_config_from_args(args), features="onehot")  # searched (stage 3)
    corpus = corpus_from_args(args)
    quiet = args.quiet
    auto = run_auto(corpus, tokenizer, base, budget=budget, stop_words=stop_words,
                    cooccurrence=args.cooccurrence, cache=not args.no_cache,
                    log=(lambda _: None) if quiet else (lambda m: print(m, file=sys.stderr)))
    table = auto.table()
    print(auto.aligned(), end="")
    c = auto.chosen
    test = c.test
    name = f"{c.model_label}{' + linear' if c.predictor != 'graph' else ''}"
    print(f"auto chose {name} with {c.setting.label()} (validation accuracy "
          f"{c.val_accuracy:.4f}; {len(auto.candidates)} candidates in {auto.seconds:.0f} s)")
    print(f"test accuracy {test['accuracy']:.4f} | macro F1 {test['macro_f1']:.4f}")
    print_beside("auto", test, auto.baseline)
    extra = {"baseline": baseline_metrics(auto.baseline), "auto": chosen_summary(auto)}
    if c.predictor != "graph":  # test: the combination's; the graph part's beside it
        extra["graph_part"] = {"test": auto.result.test, "val": auto.result.val}
        extra.update(_combined_metrics(auto))
    if args.out:
        out = write_run(args.out, auto.result, auto.graph, extra_metrics=extra,
                        extra_files={"auto.csv": table})
        print(f"wrote {out} (candidates in auto.csv)")
    if args.save:
        _save_chosen(args.save, auto, corpus)
    return 0


def _combined_metrics(auto) -> dict:
    """``test``/``val`` metrics of a chosen combination (the combined predictor's)."""
    from gfbgcn.core.metrics import classification_metrics
    from gfbgcn.text.predict.combined import mix

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


def _save_chosen(path: str, auto, corpus) -> None:
    from gfbgcn.text.predict.saved import save_trained

    writer = None
    if auto.chosen.predictor != "graph":
        from gfbgcn.text.predict.combined import write_linear

        def write_linear_part(staging: Path) -> dict:  # inside the model directory being built
            return {"combined": write_linear(staging, auto.baseline.model, auto.chosen.weight)}
        writer = write_linear_part
    saved = save_trained(path, auto.result, auto.graph, corpus, extra_writer=writer)
    print(f"saved model to {saved}")

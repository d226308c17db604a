"""`gfbgcn train`: train a model on a benchmark or a user's corpus file.

The verb parses, fits a :class:`gfbgcn.TextGCNClassifier` (:meth:`fit_corpus`: the graph, the
batching, multi-label training, the baseline and ``--auto`` are the estimator's), prints and
writes what it fitted.  Its options are generated from :data:`gfbgcn.text.params.PARAMETERS`
(:func:`gfbgcn.cli.options.add_parameter_arguments`)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from gfbgcn.cli.flags import add_threads_argument
from gfbgcn.cli.options import (
    add_corpus_arguments,
    add_parameter_groups,
    check_applicable,
    classifier_from_args,
    corpus_from_args,
    graph_settings_text,
    is_benchmark,
    run_provenance,
)
from gfbgcn.cli.runtime.argtypes import nonempty_path
from gfbgcn.cli.runtime.torchrun import torchrun_rank
from gfbgcn.cli.train_auto import NO_TEST_LINE, print_auto, print_beside
from gfbgcn.core.atomic import check_outputs
from gfbgcn.core.errors import OptionError
from gfbgcn.core.extras import install_hint
from gfbgcn.core.figures.canvas import can_draw
from gfbgcn.core.runinfo import set_threads
from gfbgcn.text.estimator.settings import check_savable
from gfbgcn.text.params import AUTO
from gfbgcn.text.train.checks import check_has_test


def train_arguments(parser: argparse.ArgumentParser) -> None:
    add_corpus_arguments(parser)  # with the graph's options
    add_parameter_groups(parser, ("training", "mini-batch", "search", "encoder", "run"))
    outputs = parser.add_argument_group("what it writes")
    outputs.add_argument("--out", type=nonempty_path, default=None, metavar="DIR",
                         help="write config.json, history.csv, metrics.json and "
                         "predictions.csv to this directory, and where matplotlib is "
                         "installed (pip install 'gfbgcn[figures]') curves.png (losses and "
                         "validation metrics per epoch) and confusion.png (multi-label: "
                         "label_f1.png)")
    outputs.add_argument("--save", type=nonempty_path, default=None, metavar="MODEL_DIR",
                         help="save the trained model for `gfbgcn predict` / gfbgcn.load "
                         "(two-layer models: gcn, gfb-*, fbp, cbp, bp, sqrt)")
    add_threads_argument(parser)


def train(args: argparse.Namespace) -> int:
    """Train one model on a corpus, report test metrics, optionally save it: the options make
    a :class:`gfbgcn.TextGCNClassifier` (:func:`~gfbgcn.cli.options.classifier_from_args`),
    whose :meth:`fit_corpus` does the work."""
    check_applicable(args)
    check_torchrun(args)
    set_threads(args.threads)
    if args.save and not args.auto:
        check_savable(args.model)
    clf = classifier_from_args(args)
    # every setting checked and resolved once, the device too: a bad option or an absent GPU
    # fails here, before the corpus is read
    settings = clf.resolve_settings(is_benchmark(args))
    check_outputs(args.out, args.save)  # before any work: a trained result is never lost
    corpus = corpus_from_args(args)
    speak = torchrun_rank()[0] == 0  # under torchrun, rank 0 reports and writes
    clf.fit_corpus(corpus, report=_reporter(speak), settings=settings)
    if not speak:
        return 0
    if clf.auto_ is not None:
        print_auto(clf.auto_)
    else:
        result = clf.result_
        assert result is not None  # fit_corpus has just set it
        _print_result(result, clf.multi_label)
        if clf.baseline_ is not None and result.test is not None:
            print_beside(result.config.model, result.test, clf.baseline_)
    if args.out:
        draw = can_draw()
        out = clf.write_run(args.out, run_provenance(args, corpus), draw=draw)
        print(f"wrote {out}{' (candidates in auto.csv)' if clf.auto_ is not None else ''}")
        if not draw:
            print(f"note: no figures (training curves, confusion matrix) in {out}: matplotlib "
                  f"is not installed ({install_hint('figures')}; then gfbgcn.draw_run("
                  f"{str(out)!r}) draws them)", file=sys.stderr)
    if args.save:
        print(f"saved model to {clf.save(args.save, transductive=False)}")
    return 0


def check_torchrun(args: argparse.Namespace) -> None:
    """Under torchrun, the processes share the mini-batch training of one model; anything else
    would run whole in every process (each writing the same --out and --save): refused."""
    if torchrun_rank()[1] == 1:
        return
    if args.auto:
        raise OptionError("--auto does not run under torchrun (every process would search "
                          "alone): run it in one process")
    if not args.batch_size or args.batch_size == AUTO:
        raise OptionError("torchrun needs --batch-size N: full-batch training runs in one "
                          "process (run it without torchrun)")


def _reporter(speak: bool) -> Callable[[str, Any], None]:
    """``fit_corpus``'s report: a corpus without test documents refused, and the graph, the
    batching and the labels printed as they are known (by rank 0 only)."""
    def report(event: str, value: Any) -> None:
        if event == "graph":
            check_has_test(value.is_train)
        if not speak:
            return
        if event == "graph":
            _print_graph(value)
        elif event == "batching":
            print(f"batching: {value.describe()}; --batch-size N or 0 sets it")
        elif event == "tensorboard":
            print(f"tensorboard: logging the epochs to {value} (view: tensorboard --logdir "
                  f"{value.parent})")
        elif event == "estimate":  # fine-tuning's time, before it starts
            print(value, file=sys.stderr, flush=True)
        elif event == "embeddings":
            print(f"encoder {value.identity['name']}: {len(value.embeddings):,} documents, "
                  f"{value.dim}-d embeddings ({value.seconds:.1f} s, cached embeddings "
                  "reused)")
        elif event == "labels":
            targets, names = value
            print(f"multi-label: {len(names)} labels, "
                  f"{targets.sum(1).mean():.2f} labels per document on average")
    return report


def _print_graph(graph) -> None:
    for note in graph.notes:
        print(f"note: {note}", file=sys.stderr)
    how = "cached" if graph.from_cache else f"built in {graph.build_seconds:.1f} s"
    print(f"{graph.corpus_name}: {graph.num_docs:,} documents, {graph.num_words:,} words, "
          f"{len(graph.label_names)} classes (graph {how}; {graph_settings_text(graph)})")


def _print_result(result, multi_label: bool) -> None:
    config, t = result.config, result.test
    stopped = (f"model {config.model}, seed {config.seed}: stopped after {result.epochs_run} "
               f"epochs (best validation loss {result.val['loss']:.4f} at epoch "
               f"{result.best_epoch})")
    if multi_label:
        print(f"{stopped}; threshold {result.threshold:.2f} (chosen on validation)")
    else:
        lam = "" if result.lam is None else f", lambda {result.lam:.4f}"
        print(f"{stopped}{lam}, {result.seconds_per_epoch * 1000:.0f} ms/epoch on "
              f"{result.device}, peak RSS {result.peak_rss_mib:.0f} MiB")
    if t is None:
        print(NO_TEST_LINE)
    elif multi_label:
        print(f"test micro F1 {t['micro_f1']:.4f} | macro F1 {t['macro_f1']:.4f} | "
              f"subset accuracy {t['subset_accuracy']:.4f}")
    else:
        print(f"test accuracy {t['accuracy']:.4f} | macro precision "
              f"{t['macro_precision']:.4f} recall {t['macro_recall']:.4f} F1 "
              f"{t['macro_f1']:.4f}")

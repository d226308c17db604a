"""`gfbgcn train`: train a model on a benchmark or a user's corpus file."""

from __future__ import annotations

import argparse
import sys

from gfbgcn.cli.flags import add_threads_argument
from gfbgcn.cli.options import (
    FANOUT,
    add_corpus_arguments,
    check_applicable,
    classifier_from_args,
    corpus_from_args,
    run_provenance,
    train_config_from_args,
)
from gfbgcn.cli.runtime.argtypes import float_in, int_in, nonempty_path, positive_int
from gfbgcn.cli.runtime.device import add_device_argument, device_from_args
from gfbgcn.cli.runtime.torchrun import torchrun_rank
from gfbgcn.cli.train_auto import add_own_corpus_arguments, baseline_beside
from gfbgcn.core.errors import OptionError
from gfbgcn.core.runinfo import set_threads
from gfbgcn.core.validate import SEED_MAX, range_text
from gfbgcn.text.search.own_corpus import is_own_file
from gfbgcn.text.train.batching import (
    AUTO,
    adjacency_entries,
    available_bytes,
    choose_batching,
)
from gfbgcn.text.train.checks import LAMBDA_MAX, LR_MAX, WEIGHT_DECAY_MAX
from gfbgcn.text.train.models import MODELS
from gfbgcn.text.train.optim import OPTIMIZERS


def train_arguments(parser: argparse.ArgumentParser) -> None:
    add_corpus_arguments(parser)
    parser.add_argument("--model", default="gfb-max", choices=MODELS, help="model (gfb-max)")
    parser.add_argument("--features", default="onehot", choices=("onehot", "wordllama"),
                        help="node input: onehot identity (the paper), or wordllama: identity "
                        "plus 256-d pretrained word vectors, documents the TF-IDF-weighted mean "
                        "of their words' (needs pip install 'gfbgcn[embeddings]')")
    parser.add_argument("--seed", type=int_in(0, SEED_MAX), default=0,
                        help=f"seed of weights, dropout and the validation split (0; "
                        f"{range_text(0, SEED_MAX)})")
    parser.add_argument("--epochs", type=int_in(1), default=200,
                        help="maximum epochs (200; >= 1)")
    parser.add_argument("--patience", type=int_in(1), default=10,
                        help="early-stopping patience (10; >= 1)")
    parser.add_argument("--hidden", type=int_in(1), default=200, help="hidden size (200; >= 1)")
    parser.add_argument("--lr", type=float_in(0, LR_MAX, low_open=True), default=0.02,
                        help=f"Adam learning rate (0.02; {range_text(0, LR_MAX, True)})")
    parser.add_argument("--dropout", type=float_in(0, 1, high_open=True), default=0.5,
                        help="dropout rate (0.5; in [0, 1))")
    parser.add_argument("--weight-decay", type=float_in(0, WEIGHT_DECAY_MAX), default=0.0,
                        help=f"weight decay (0; {range_text(0, WEIGHT_DECAY_MAX)})")
    parser.add_argument("--val-ratio", type=float_in(0, 1, low_open=True, high_open=True),
                        default=0.1, help="share of training documents used for validation "
                        "(0.1; in (0, 1))")
    parser.add_argument("--fast-genvec", action="store_true",
                        help="GFB: the paper's fast GenVec form instead of the exact one")
    parser.add_argument("--fixed-lambda", type=float_in(-LAMBDA_MAX, LAMBDA_MAX), default=None,
                        metavar="VALUE", help="GFB: freeze lambda at VALUE (0 gives plain GCN; "
                        f"{range_text(-LAMBDA_MAX, LAMBDA_MAX)})")
    parser.add_argument("--out", type=nonempty_path, default=None, metavar="DIR", help="write config.json, "
                        "history.csv and metrics.json to this directory")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    add_threads_argument(parser)
    parser.add_argument("--save", type=nonempty_path, default=None, metavar="MODEL_DIR",
                        help="save the trained model for `gfbgcn predict` / gfbgcn.load "
                        "(two-layer models: gcn, gfb-*, fbp, cbp, bp, sqrt)")
    parser.add_argument("--multi-label", action="store_true",
                        help="labels are sets joined by --label-sep: sigmoid outputs, BCE loss, "
                        "micro/macro F1, threshold chosen on the validation split")
    parser.add_argument("--label-sep", default=None, metavar="SEP",
                        help="--multi-label: the separator of a document's labels (|)")
    add_device_argument(parser)
    add_own_corpus_arguments(parser)
    _add_batching_arguments(parser)


def _add_batching_arguments(parser: argparse.ArgumentParser) -> None:
    """``--batch-size`` and the mini-batch options that go with it."""
    parser.add_argument("--batch-size", type=batch_size_value, default=AUTO, metavar="N|auto",
                        help="mini-batch training: N training documents per step on sampled "
                        "subgraphs (two-layer models; 0: full batch); auto (the default): full "
                        "batch where the graph's full-batch training fits in the memory "
                        "available, else 1024 documents a step, fanout 8, row budget 16384 and "
                        "sparse Adam (said in one line); runs under torchrun with an explicit N, "
                        "one shard of each batch per process")
    parser.add_argument("--fanout", type=positive_int, default=None, metavar="K",
                        help=f"--batch-size: sampled layer-1 neighbours per node ({FANOUT}; "
                        ">= 1)")
    parser.add_argument("--row-budget", type=positive_int, default=None, metavar="K",
                        help="--batch-size: at most K rows of the first layer's input (rows of "
                        "W1) per step, drawn by layer-wise importance sampling, so a step's "
                        "cost stays bounded as the graph grows (default: every sampled row)")
    parser.add_argument("--optimizer", default="adam", choices=OPTIMIZERS,
                        help="adam (the paper's), or sparse-adam: mini-batch only, W1 read and "
                        "updated at the rows a batch uses (lazy Adam; less memory per node, no "
                        "weight decay)")


def _print_result(result, multi_label: bool) -> None:
    config, t = result.config, result.test
    stopped = (f"model {config.model}, seed {config.seed}: stopped after {result.epochs_run} "
               f"epochs (best validation loss {result.val['loss']:.4f} at epoch "
               f"{result.best_epoch})")
    if multi_label:
        print(f"{stopped}; threshold {result.threshold:.2f} (chosen on validation)")
        print(f"test micro F1 {t['micro_f1']:.4f} | macro F1 {t['macro_f1']:.4f} | "
              f"subset accuracy {t['subset_accuracy']:.4f}")
        return
    lam = "" if result.lam is None else f", lambda {result.lam:.4f}"
    print(f"{stopped}{lam}, {result.seconds_per_epoch * 1000:.0f} ms/epoch on {result.device}, "
          f"peak RSS {result.peak_rss_mib:.0f} MiB")
    print(f"test accuracy {t['accuracy']:.4f} | macro precision {t['macro_precision']:.4f} "
          f"recall {t['macro_recall']:.4f} F1 {t['macro_f1']:.4f}")


def train(args: argparse.Namespace) -> int:
    """Train one model on a corpus, report test metrics, optionally save it.

    The work goes through the Python API: the options make a :class:`gfbgcn.TextGCNClassifier`
    (:func:`~gfbgcn.cli.options.classifier_from_args`), which builds the graph and fits it;
    multi-label runs call the trainer it calls (:func:`gfbgcn.text.train.run.train_text`)."""
    from gfbgcn.core.atomic import check_outputs
    from gfbgcn.text.estimator.settings import check_savable
    from gfbgcn.text.train.checks import check_has_test, check_has_words

    check_applicable(args)
    check_torchrun(args)
    device = device_from_args(args)  # an absent GPU fails here, before any work
    args.device = str(device)  # resolved (--workers > 1: the CPU); the classifier trains there
    set_threads(args.threads)
    # auto: full batch until the graph's size is known (and in --auto's search)
    auto_batch = args.batch_size == AUTO
    if args.auto:
        from gfbgcn.cli.train_auto import train_auto

        return train_auto(args)
    config = train_config_from_args(args)  # every setting checked, multi-label ones too
    if args.save:
        check_savable(config.model)
    clf = classifier_from_args(args)
    from gfbgcn.text.train.distributed import init_from_env, rank_zero_first

    check_outputs(args.out, args.save)  # before any work: a trained result is never lost
    # under torchrun (mini-batch only): one process group, rank 0 builds the graph first
    rank, _ = init_from_env() if config.batch_size else (0, 1)
    corpus, graph = rank_zero_first(lambda: _corpus_and_graph(args, clf))
    check_has_test(graph.is_train)
    check_has_words(graph.num_words, args.min_freq)
    if rank == 0:  # under torchrun, one process speaks
        _print_graph(graph)
    if auto_batch:
        config = _choose_batching(args, graph, device, clf, speak=rank == 0)
    if args.multi_label:
        return _train_multi_label(args, corpus, graph, config, device)
    result = clf.fit_corpus(corpus, graph).result_
    if rank != 0:  # every rank holds the same model; rank 0 reports and writes
        return 0
    _print_result(result, False)
    _write_outputs(args, corpus, graph, result)
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


def batch_size_value(text: str) -> int | str:
    """argparse type of ``--batch-size``: a count >= 0, or ``auto``."""
    if text.strip().lower() == AUTO:
        return AUTO
    return int_in(0)(text)


def _choose_batching(args: argparse.Namespace, graph, device, clf, speak: bool):
    """``--batch-size auto``: full batch or the row-budget mini-batch setting, from the graph's
    size and the memory free on ``device`` (:mod:`gfbgcn.text.train.batching`); the options and
    the classifier take the choice, and the returned training settings are checked again."""
    choice = choose_batching(
        graph.num_nodes, adjacency_entries(graph.num_nodes, graph.num_doc_word,
                                           graph.num_word_word),
        model=args.model, hidden=args.hidden, available=available_bytes(device),
        fit_docs=int(graph.is_train.sum() * (1 - args.val_ratio)),
        multi_label=args.multi_label, weight_decay=args.weight_decay)
    if speak:
        print(f"batching: {choice.describe()}; --batch-size N or 0 sets it")
    if choice.batch_size:
        args.batch_size, args.fanout = choice.batch_size, choice.fanout
        args.row_budget, args.optimizer = choice.row_budget, choice.optimizer
        clf.set_params(batch_size=choice.batch_size, fanout=choice.fanout,
                       row_budget=choice.row_budget, optimizer=choice.optimizer)
    return train_config_from_args(args)


def _corpus_and_graph(args: argparse.Namespace, clf) -> tuple:
    clf.graph_settings()  # bad graph settings fail before the corpus is read
    corpus = corpus_from_args(args)
    return corpus, clf.build_graph(corpus)


def _print_graph(graph) -> None:
    for note in graph.notes:
        print(f"note: {note}", file=sys.stderr)
    how = "cached" if graph.from_cache else f"built in {graph.build_seconds:.1f} s"
    print(f"{graph.corpus_name}: {graph.num_docs:,} documents, {graph.num_words:,} words, "
          f"{len(graph.label_names)} classes (graph {how})")


def _write_outputs(args: argparse.Namespace, corpus, graph, result, label_names=None) -> None:
    """The baseline beside a single-label run on a user's file, and ``--out``."""
    from gfbgcn.text.train.run_files import write_run

    extra = baseline = None
    if is_own_file(args.dataset) and not (args.multi_label or args.no_baseline):
        extra, fitted = baseline_beside(corpus, graph, result)
        baseline = fitted.probabilities
    if args.out:
        out = write_run(args.out, result, graph, label_names, extra, baseline=baseline,
                        provenance=run_provenance(args, corpus))
        print(f"wrote {out}")


def _train_multi_label(args: argparse.Namespace, corpus, graph, config, device) -> int:
    """``--multi-label``: label sets as multi-hot targets, trained full batch."""
    from gfbgcn.text.corpus.labels import multi_hot, split_labels, warn_if_no_separator
    from gfbgcn.text.predict.saved import save_trained
    from gfbgcn.text.train.run import train_text

    warn_if_no_separator(corpus.labels, args.label_sep)
    targets, label_names = multi_hot(split_labels(corpus.labels, args.label_sep))
    print(f"multi-label: {len(label_names)} labels, "
          f"{targets.sum(1).mean():.2f} labels per document on average")
    result = train_text(graph, config, progress=not args.quiet, multilabel_targets=targets,
                        device=device)
    _print_result(result, True)
    _write_outputs(args, corpus, graph, result, label_names)
    if args.save:
        path = save_trained(args.save, result, graph, corpus, label_names, args.label_sep)
        print(f"saved model to {path}")
    return 0

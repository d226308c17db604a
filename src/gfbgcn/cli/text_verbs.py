"""The text verbs of ``gfbgcn``: ``data stats``, ``data build``, ``train``, ``reproduce text``,
``reproduce inductive`` and ``reproduce own-corpora`` (``predict``: :mod:`gfbgcn.text.predict.io`).

Each verb is a pair ``<verb>_arguments(parser)`` / ``<verb>(args) -> exit status``, wired by
:mod:`gfbgcn.cli`.  The work itself lives in the other modules of :mod:`gfbgcn.text`.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from gfbgcn.core import harness
from gfbgcn.core.device import add_device_argument, device_from_args
from gfbgcn.core.runinfo import set_threads, thread_count, torch_threads
from gfbgcn.core.validate import encoding_name, float_in, int_in
from gfbgcn.text.corpus.benchmarks import BENCHMARKS, Corpus, load_corpus
from gfbgcn.text.graph.text_graph import GraphConfig, TextGraph, build_text_graph
from gfbgcn.text.train.models import MODELS, SECOND_LAYERS
from gfbgcn.text.auto.own_corpus import add_own_corpus_arguments, baseline_beside, is_own_file
from gfbgcn.cli.tokenizer_options import add_tokenizer_arguments, tokenization_from_args

#: Models of ``reproduce text`` when ``--models`` is not given (the paper's table).
TEXT_MODELS = ("gcn", "gfb-max", "gfb-mean", "gfb-diag", "gfb-topk",
               "fbp", "cbp", "bp", "sqrt", "sgc", "gin")


# ---------------------------------------------------------------------------------------------
# Corpus options shared by data, train


def add_corpus_arguments(parser: argparse.ArgumentParser) -> None:
    """``--dataset`` and the options that read a corpus and build its graph."""
    parser.add_argument("--dataset", required=True, metavar="NAME|FILE",
                        help="20ng, r8, r52, ohsumed, or a CSV/TSV/JSONL corpus file")
    parser.add_argument("--data-dir", default=None, metavar="DIR",
                        help="data root (default: $GFBGCN_DATA, then the user cache dir)")
    parser.add_argument("--text-col", default="text", help="text column of a corpus file")
    parser.add_argument("--label-col", default="label", help="label column of a corpus file")
    parser.add_argument("--split-col", default="split", help="train/test column of a corpus "
                        "file (absent: stratified 10%% test split drawn with --split-seed)")
    parser.add_argument("--split-seed", type=int_in(0), default=0,
                        help="seed of that split (0; >= 0)")
    parser.add_argument("--skip-bad-rows", action="store_true",
                        help="skip malformed rows of a corpus file (reported) instead of failing")
    parser.add_argument("--encoding", type=encoding_name, default="utf-8",
                        help="encoding of a corpus file (utf-8; a UTF-8 or UTF-16 byte-order "
                        "mark is recognised)")
    parser.add_argument("--window", type=int_in(1), default=20,
                        help="PMI sliding window (20; >= 1)")
    parser.add_argument("--min-freq", type=int_in(1), default=5,
                        help="drop words seen fewer times (5; >= 1)")
    parser.add_argument("--cooccurrence", choices=("window", "pair"), default="window",
                        help="W(i,j) as windows containing both words (paper) or position pairs "
                        "(reference code)")
    parser.add_argument("--no-cache", action="store_true", help="rebuild the graph, do not cache")
    add_tokenizer_arguments(parser)
    parser.add_argument("--workers", type=harness.positive_int, default=None, metavar="N",
                        help="processes building the graph (default: every available core; "
                        "the graph does not depend on it)")


def corpus_from_args(args: argparse.Namespace) -> Corpus:
    return load_corpus(
        args.dataset,
        args.data_dir,
        text_col=args.text_col,
        label_col=args.label_col,
        split_col=args.split_col,
        seed=args.split_seed,
        skip_bad_rows=args.skip_bad_rows,
        encoding=args.encoding,
    )


def graph_from_args(args: argparse.Namespace) -> tuple[Corpus, TextGraph]:
    tokenizer, stop_words = tokenization_from_args(args)  # bad values fail before reading
    corpus = corpus_from_args(args)
    config = GraphConfig(window=args.window, min_freq=args.min_freq, stop_words=stop_words,
                         cooccurrence=args.cooccurrence)
    return corpus, build_text_graph(corpus, config, tokenizer, cache=not args.no_cache,
                                    workers=args.workers)


# ---------------------------------------------------------------------------------------------
# gfbgcn data stats | data build


def format_stats(stats: dict, notes: list[str]) -> str:
    rows = [
        ("dataset", stats["dataset"]),
        ("documents", f"{stats['docs']:,} (train {stats['train_docs']:,} / test "
                      f"{stats['test_docs']:,})"),
        ("classes", f"{stats['classes']:,}"),
        ("vocabulary", f"{stats['words']:,}"),
        ("nodes", f"{stats['nodes']:,}"),
        ("edges doc-word", f"{stats['doc_word_edges']:,}"),
        ("edges word-word", f"{stats['word_word_edges']:,}"),
        ("average length", f"{stats['average_length']:.2f}"),
        ("empty documents", f"{stats['empty_docs']:,}"),
    ]
    width = max(len(k) for k, _ in rows)
    lines = [f"{k:<{width}}  {v}" for k, v in rows]
    lines += [f"note: {n}" for n in notes]
    return "\n".join(lines)


def data_stats_arguments(parser: argparse.ArgumentParser) -> None:
    add_corpus_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")


def data_stats(args: argparse.Namespace) -> int:
    """Corpus and graph statistics (the paper's Table "statistics of datasets")."""
    _, graph = graph_from_args(args)
    stats = graph.stats()
    print(json.dumps(stats, indent=2) if args.json else format_stats(stats, graph.notes))
    return 0


def data_build_arguments(parser: argparse.ArgumentParser) -> None:
    add_corpus_arguments(parser)


def data_build(args: argparse.Namespace) -> int:
    """Build the graph into the cache; print where it is (``data stats`` describes it)."""
    _, graph = graph_from_args(args)
    if graph.from_cache:
        print(f"{graph.corpus_name}: graph already cached (key {graph.key})")
    elif graph.key:
        print(f"{graph.corpus_name}: graph built in {graph.build_seconds:.1f} s and cached "
              f"(key {graph.key}): {graph.num_nodes:,} nodes, "
              f"{graph.num_doc_word + graph.num_word_word:,} edges")
    else:
        print(f"{graph.corpus_name}: graph built in {graph.build_seconds:.1f} s (not cached)")
    return 0


# ---------------------------------------------------------------------------------------------
# gfbgcn train


def train_arguments(parser: argparse.ArgumentParser) -> None:
    add_corpus_arguments(parser)
    parser.add_argument("--model", default="gfb-max", choices=MODELS, help="model (gfb-max)")
    parser.add_argument("--features", default="onehot", choices=("onehot", "wordllama"),
                        help="node input: onehot identity (the paper), or wordllama: identity "
                        "plus 256-d pretrained word vectors, documents the TF-IDF-weighted mean "
                        "of their words' (needs pip install 'gfbgcn[embeddings]')")
    parser.add_argument("--seed", type=int_in(0), default=0, help="seed of weights, dropout "
                        "and the validation split (0; >= 0)")
    parser.add_argument("--epochs", type=int_in(1), default=200,
                        help="maximum epochs (200; >= 1)")
    parser.add_argument("--patience", type=int_in(1), default=10,
                        help="early-stopping patience (10; >= 1)")
    parser.add_argument("--hidden", type=int_in(1), default=200, help="hidden size (200; >= 1)")
    parser.add_argument("--lr", type=float_in(0, low_open=True), default=0.02,
                        help="Adam learning rate (0.02; > 0)")
    parser.add_argument("--dropout", type=float_in(0, 1, high_open=True), default=0.5,
                        help="dropout rate (0.5; in [0, 1))")
    parser.add_argument("--weight-decay", type=float_in(0), default=0.0,
                        help="weight decay (0; >= 0)")
    parser.add_argument("--val-ratio", type=float_in(0, 1, low_open=True, high_open=True),
                        default=0.1, help="share of training documents used for validation "
                        "(0.1; in (0, 1))")
    parser.add_argument("--fast-genvec", action="store_true",
                        help="GFB: the paper's fast GenVec form instead of the exact one")
    parser.add_argument("--fixed-lambda", type=float_in(), default=None, metavar="VALUE",
                        help="GFB: freeze lambda at VALUE (0 gives plain GCN)")
    parser.add_argument("--out", default=None, metavar="DIR", help="write config.json, "
                        "history.csv and metrics.json to this directory")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--threads", type=thread_count, default=None,
                        help="torch CPU threads (default: torch's choice)")
    parser.add_argument("--save", default=None, metavar="MODEL_DIR",
                        help="save the trained model for `gfbgcn predict` / gfbgcn.load "
                        "(two-layer models: gcn, gfb-*, fbp, cbp, bp, sqrt)")
    parser.add_argument("--multi-label", action="store_true",
                        help="labels are sets joined by --label-sep: sigmoid outputs, BCE loss, "
                        "micro/macro F1, threshold chosen on the validation split")
    parser.add_argument("--label-sep", default="|", help="separator of --multi-label labels (|)")
    add_device_argument(parser)
    add_own_corpus_arguments(parser)
    parser.add_argument("--batch-size", type=int_in(0), default=0, metavar="N",
                        help="mini-batch training: N training documents per step on sampled "
                        "subgraphs (two-layer models; 0: full batch, the default); runs under "
                        "torchrun with one shard of each batch per process")
    parser.add_argument("--fanout", type=harness.positive_int, default=32, metavar="K",
                        help="mini-batch: sampled layer-1 neighbours per node (32)")


def train_config_from_args(args: argparse.Namespace):
    from gfbgcn.text.train.full_batch import TrainConfig

    options: dict = {}
    if args.model.startswith("gfb-"):
        options["exact"] = not args.fast_genvec
        if args.fixed_lambda is not None:
            options["lambda_init"] = args.fixed_lambda
    elif args.fast_genvec or args.fixed_lambda is not None:
        raise SystemExit("--fast-genvec and --fixed-lambda apply to gfb-* models only")
    if args.batch_size and (args.model in ("sgc", "gin") or getattr(args, "multi_label", False)):
        raise SystemExit("--batch-size supports single-label two-layer models only")
    return TrainConfig(
        model=args.model, seed=args.seed, hidden=args.hidden, dropout=args.dropout, lr=args.lr,
        weight_decay=args.weight_decay, epochs=args.epochs, patience=args.patience,
        val_ratio=args.val_ratio, train_lambda=args.fixed_lambda is None, layer_options=options,
        batch_size=args.batch_size, fanout=args.fanout, features=args.features,
    )


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
    """Train one model on a corpus, report test metrics, optionally save it."""
    from gfbgcn.core.atomic import check_outputs
    from gfbgcn.text.train.checks import check_has_test, check_has_words
    from gfbgcn.text.train.full_batch import train_text, write_run

    if getattr(args, "batch_size", 0) and args.device == "auto":
        args.device = "cpu"  # mini-batch training runs on the CPU (see text/train/full_batch.py)
    device = device_from_args(args)  # an absent GPU fails here, before any work
    set_threads(args.threads)
    if args.auto:
        from gfbgcn.text.auto.own_corpus import train_auto

        return train_auto(args)
    config = train_config_from_args(args)
    if args.save and config.model in ("sgc", "gin"):
        raise SystemExit(f"--save supports the two-layer models only, not {config.model}")
    from gfbgcn.text.train.distributed import init_from_env, rank_zero_first

    check_outputs(args.out, args.save)  # before any work: a trained result is never lost
    # under torchrun (mini-batch only): one process group, rank 0 builds the graph first
    rank, _ = init_from_env() if config.batch_size else (0, 1)
    corpus, graph = rank_zero_first(lambda: graph_from_args(args))
    check_has_test(graph.is_train)
    check_has_words(graph.num_words, args.min_freq)
    if rank == 0:  # under torchrun, one process speaks
        for note in graph.notes:
            print(f"note: {note}", file=sys.stderr)
        how = "cached" if graph.from_cache else f"built in {graph.build_seconds:.1f} s"
        print(f"{graph.corpus_name}: {graph.num_docs:,} documents, {graph.num_words:,} words, "
              f"{len(graph.label_names)} classes (graph {how})")
    targets = label_names = None
    if args.multi_label:
        from gfbgcn.text.corpus.labels import multi_hot, split_labels

        targets, label_names = multi_hot(split_labels(corpus.labels, args.label_sep))
        print(f"multi-label: {len(label_names)} labels, "
              f"{targets.sum(1).mean():.2f} labels per document on average")
    result = train_text(graph, config, progress=not args.quiet, multilabel_targets=targets,
                        device=device)
    if rank != 0:  # every rank holds the same model; rank 0 reports and writes
        return 0
    _print_result(result, args.multi_label)
    extra = None
    if is_own_file(args.dataset) and not (args.multi_label or args.no_baseline):
        extra = baseline_beside(corpus, graph, result)
    if args.out:
        print(f"wrote {write_run(args.out, result, graph, label_names, extra)}")
    if args.save:
        from gfbgcn.text.predict.saved import save_trained

        path = save_trained(args.save, result, graph, corpus, label_names, args.label_sep)
        print(f"saved model to {path}")
    return 0


# ---------------------------------------------------------------------------------------------
# gfbgcn reproduce text | reproduce inductive


def reproduce_text_arguments(parser: argparse.ArgumentParser) -> None:
    harness.add_arguments(parser, datasets=BENCHMARKS, models=MODELS,
                          default_models=TEXT_MODELS, seeds=10, epochs=200)
    parser.add_argument("--variants", nargs="+", default=[], metavar="VARIANT",
                        help="also run these variants of every model they apply to: "
                             "fast (GFB MaxVec/TopKVec), lambda0, lam0init (GFB models), "
                             "eps-1 (Text GIN), lr0.2 (Text SGC), stopacc")


def reproduce_text(args: argparse.Namespace) -> int:
    """The paper's text tables: run the grid (resumable), write ``<out>/text.md``."""
    from gfbgcn.text.reproduce.text_grid import grid, run_text_grid
    from gfbgcn.text.reproduce.text_report import render_text_report

    device = device_from_args(args)
    layout = harness.Layout(args.out, "text")
    command = harness.command_line(args)

    def report(*_) -> None:
        render_text_report(layout, command)

    def run(dataset: str) -> None:
        specs = grid([dataset], args.models, range(args.seeds), args.variants)
        run_text_grid(specs, layout.store(), args.data_dir, args.epochs, workers=args.workers,
                      threads=args.threads, on_saved=harness.Throttle(report), device=device)

    _run_datasets(args, layout, run, report)
    return 0


def _run_datasets(args: argparse.Namespace, layout: harness.Layout, run, report,
                  wrote=None) -> None:
    """``run(dataset)`` for each of ``--datasets`` (logged with its wall time in ``layout``),
    then the report (``wrote``: its path, default ``layout.report``); with ``--report-only``
    only the report."""
    with torch_threads(args.threads):
        if not args.report_only:
            log = harness.Invocations(layout, args)
            for dataset in args.datasets:
                start = time.perf_counter()
                run(dataset)
                log.add_seconds(dataset, time.perf_counter() - start)
            log.finish()
        report()
    print(f"wrote {wrote or layout.report}")


def reproduce_inductive_arguments(parser: argparse.ArgumentParser) -> None:
    harness.add_arguments(parser, datasets=BENCHMARKS, models=SECOND_LAYERS,
                          default_models=("gfb-max", "gcn"), seeds=2, epochs=200)


def reproduce_inductive(args: argparse.Namespace) -> int:
    """Inductive (new documents) against transductive accuracy -> ``<out>/inductive.md``."""
    from gfbgcn.text.reproduce.text_grid import inductive_grid, run_inductive_grid
    from gfbgcn.text.reproduce.inductive_report import render_inductive_report

    device = device_from_args(args)
    layout = harness.Layout(args.out, "inductive")

    def report(*_) -> None:
        render_inductive_report(layout)

    def run(dataset: str) -> None:
        specs = inductive_grid([dataset], args.models, range(args.seeds))
        run_inductive_grid(specs, layout.store(), args.data_dir, args.epochs,
                           workers=args.workers, threads=args.threads,
                           on_saved=harness.Throttle(report), device=device)

    _run_datasets(args, layout, run, report)
    return 0


def reproduce_own_corpora_arguments(parser: argparse.ArgumentParser) -> None:
    from gfbgcn.text.auto.experiment import OWN_DATASETS

    harness.add_arguments(parser, datasets=OWN_DATASETS, models=("auto",), seeds=5, epochs=200)
    parser.add_argument("--features-only", action="store_true",
                        help="only column (e): train the pretrained-features candidate of "
                        "searches already recorded (into raw/own-corpora-features/)")


def reproduce_own_corpora(args: argparse.Namespace) -> int:
    """Paper defaults, --auto, TF-IDF + LR, combined and pretrained features ->
    ``<out>/own-corpora.md``."""
    from gfbgcn.text.auto.experiment import run_own_grid
    from gfbgcn.text.auto.report import render_own_report

    layout = harness.Layout(args.out, "own-corpora")

    def report(*_) -> None:
        render_own_report(layout)

    def run(dataset: str) -> None:
        run_own_grid([dataset], range(args.seeds), layout.store(), args.data_dir, args.epochs,
                     threads=args.threads, on_saved=report)

    if args.features_only:  # column (e) for recorded searches (text/auto/features_column.py)
        from gfbgcn.text.auto.features_column import run_features_only

        run_features_only(args, layout, report, _run_datasets)
        return 0
    _run_datasets(args, layout, run, report)
    return 0

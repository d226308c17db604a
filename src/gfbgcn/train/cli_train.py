"""``gfbgcn train``: train one model on a text corpus and report test metrics."""

from __future__ import annotations

import argparse
import sys

from gfbgcn.runinfo import set_threads, thread_count
from gfbgcn.text.api import add_corpus_arguments, graph_from_args
from gfbgcn.text.model import MODELS
from gfbgcn.train.text import TextTrainConfig, train_text, write_run


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dataset", required=True,
                        help="20ng, r8, r52, ohsumed, or a CSV/TSV/JSONL corpus file")
    add_corpus_arguments(parser, positional=False)
    parser.add_argument("--model", default="gfb-max", choices=MODELS, help="model (gfb-max)")
    parser.add_argument("--seed", type=int, default=0, help="seed of weights, dropout and the "
                        "validation split (0)")
    parser.add_argument("--epochs", type=int, default=200, help="maximum epochs (200)")
    parser.add_argument("--patience", type=int, default=10, help="early-stopping patience (10)")
    parser.add_argument("--hidden", type=int, default=200, help="hidden size (200)")
    parser.add_argument("--lr", type=float, default=0.02, help="Adam learning rate (0.02)")
    parser.add_argument("--dropout", type=float, default=0.5, help="dropout rate (0.5)")
    parser.add_argument("--weight-decay", type=float, default=0.0, help="weight decay (0)")
    parser.add_argument("--val-ratio", type=float, default=0.1,
                        help="share of training documents used for validation (0.1)")
    parser.add_argument("--fast-genvec", action="store_true",
                        help="GFB: the paper's fast GenVec form instead of the exact one")
    parser.add_argument("--fixed-lambda", type=float, default=None, metavar="VALUE",
                        help="GFB: freeze lambda at VALUE (0 gives plain GCN)")
    parser.add_argument("--out", default=None, help="write config.json, history.csv and "
                        "metrics.json to this directory")
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


def config_from_args(args: argparse.Namespace) -> TextTrainConfig:
    options: dict = {}
    if args.model.startswith("gfb-"):
        options["exact"] = not args.fast_genvec
        if args.fixed_lambda is not None:
            options["lambda_init"] = args.fixed_lambda
    elif args.fast_genvec or args.fixed_lambda is not None:
        raise SystemExit("--fast-genvec and --fixed-lambda apply to gfb-* models only")
    return TextTrainConfig(
        model=args.model, seed=args.seed, hidden=args.hidden, dropout=args.dropout, lr=args.lr,
        weight_decay=args.weight_decay, epochs=args.epochs, patience=args.patience,
        val_ratio=args.val_ratio, train_lambda=args.fixed_lambda is None, layer_options=options,
    )


def run(args: argparse.Namespace) -> int:
    set_threads(args.threads)
    config = config_from_args(args)
    corpus, graph = graph_from_args(args)
    for note in graph.notes:
        print(f"note: {note}", file=sys.stderr)
    how = "cached" if graph.from_cache else f"built in {graph.build_seconds:.1f} s"
    print(f"{graph.corpus_name}: {graph.num_docs:,} documents, {graph.num_words:,} words, "
          f"{len(graph.label_names)} classes (graph {how})")
    targets = label_names = None
    if args.multi_label:
        from gfbgcn.text.multilabel import multi_hot, split_labels

        targets, label_names = multi_hot(split_labels(corpus.labels, args.label_sep))
        print(f"multi-label: {len(label_names)} labels, "
              f"{targets.sum(1).mean():.2f} labels per document on average")
    if args.save and config.model in ("sgc", "gin"):
        raise SystemExit(f"--save supports the two-layer models only, not {config.model}")
    result = train_text(graph, config, progress=not args.quiet, multilabel_targets=targets)
    t = result.test
    stopped = (f"model {config.model}, seed {config.seed}: stopped after {result.epochs_run} "
               f"epochs (best validation loss {result.val['loss']:.4f} at epoch "
               f"{result.best_epoch})")
    if args.multi_label:
        print(f"{stopped}; threshold {result.threshold:.2f} (chosen on validation)")
        print(f"test micro F1 {t['micro_f1']:.4f} | macro F1 {t['macro_f1']:.4f} | "
              f"subset accuracy {t['subset_accuracy']:.4f}")
    else:
        lam = "" if result.lam is None else f", lambda {result.lam:.4f}"
        print(f"{stopped}{lam}, {result.seconds_per_epoch * 1000:.0f} ms/epoch, "
              f"peak RSS {result.peak_rss_mib:.0f} MiB")
        print(f"test accuracy {t['accuracy']:.4f} | macro precision {t['macro_precision']:.4f} "
              f"recall {t['macro_recall']:.4f} F1 {t['macro_f1']:.4f}")
    if args.out:
        print(f"wrote {write_run(args.out, result, graph, label_names)}")
    if args.save:
        print(f"saved model to {_save(args, result, graph, corpus, label_names)}")
    return 0


def _save(args, result, graph, corpus, label_names):
    """Write the trained model to ``args.save`` (see :mod:`gfbgcn.text.saved`)."""
    from dataclasses import asdict

    import numpy as np

    from gfbgcn.text.graph import corpus_digest
    from gfbgcn.text.inductive import InductiveTextGCN
    from gfbgcn.text.saved import graph_config_dict, save_model

    prior = None
    if label_names is not None:  # multi-label: per-label frequency over the training documents
        from gfbgcn.text.multilabel import multi_hot, split_labels

        y, _ = multi_hot(split_labels(corpus.labels, args.label_sep), label_names)
        prior = y[graph.is_train].mean(0).astype(np.float64)
    predictor = InductiveTextGCN.from_trained(
        result.model, graph, multi_label=label_names is not None,
        threshold=result.threshold or 0.5, prior=prior,
    )
    if label_names is not None:
        predictor.label_names = list(label_names)
    return save_model(
        args.save, predictor,
        graph_config=graph_config_dict(graph),
        train_config=asdict(result.config),
        layer_options=result.config.layer_options,
        hidden=result.config.hidden,
        data_hash={"graph_key": graph.key, "corpus_sha256": corpus_digest(corpus),
                   "num_docs": graph.num_docs, "train_docs": int(graph.is_train.sum())},
        label_sep=args.label_sep if label_names is not None else None,
        metrics={"test": {k: v for k, v in result.test.items() if k != "confusion_matrix"},
                 "best_epoch": result.best_epoch},
    )

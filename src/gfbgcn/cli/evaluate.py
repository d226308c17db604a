"""`gfbgcn evaluate`: score a model saved by `train --save` on a labelled file.

The file (``.csv``, ``.tsv``, ``.jsonl``) is read as ``train`` reads a corpus, without a split:
every row is scored.  The model classifies the texts as ``gfbgcn predict`` would; the metrics,
the unknown labels and the files of ``--out`` are :mod:`gfbgcn.text.predict.evaluate`'s.  The
report is printed to standard output; ``--out DIR`` also writes it as an evaluation directory
(written whole, never over a directory gfbgcn did not write as an evaluation).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from gfbgcn.cli.options import add_saved_model_arguments
from gfbgcn.cli.runtime.argtypes import (
    encoding_name,
    input_directory,
    input_file,
    nonempty_directory,
)
from gfbgcn.cli.runtime.device import device_from_args
from gfbgcn.core.errors import OptionError


def evaluate_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``gfbgcn evaluate``."""
    parser.add_argument("model_dir", type=input_directory, metavar="MODEL_DIR",
                        help="directory written by gfbgcn train ... --save")
    parser.add_argument("--input", type=input_file, required=True, metavar="FILE",
                        help="labelled documents: .csv, .tsv or .jsonl with --text-col and "
                        "--label-col")
    parser.add_argument("--text-col", default="text", help="text column of --input (text)")
    parser.add_argument("--label-col", default="label", help="label column of --input (label; "
                        "multi-label models: labels joined by the model's separator)")
    parser.add_argument("--id-col", default=None, metavar="COL",
                        help="a column copied into --out's predictions.csv (e.g. the ids)")
    parser.add_argument("--encoding", type=encoding_name, default="utf-8",
                        help="encoding of --input (utf-8)")
    parser.add_argument("--out", type=nonempty_directory, default=None, metavar="DIR",
                        help="also write metrics.json, per_class.csv, confusion.csv, "
                        "predictions.csv (and confusion.png with matplotlib) to this directory")
    add_saved_model_arguments(parser)


def evaluate(args: argparse.Namespace) -> int:
    """Score the model on the labelled file; print the report, write ``--out``."""
    from gfbgcn.core.extras import install_hint
    from gfbgcn.text.corpus.table import read_labelled
    from gfbgcn.text.predict import evaluate as evaluation
    from gfbgcn.text.predict.saved import load_model_and_config

    device = device_from_args(args)
    _check_columns(args)
    if args.out is not None:
        check_out(args.out)  # before any work: a result is never lost to a refused directory
    docs = read_labelled(args.input, args.text_col, args.label_col, args.id_col,
                         encoding=args.encoding)
    model, config = load_model_and_config(args.model_dir, self_embedding=args.self_embedding,
                                          device=device, encoder=args.encoder)
    sep = config["labels"].get("separator") or "|"
    ev = evaluation.evaluate(model, docs.texts, docs.labels, label_sep=sep,
                             batch_size=args.predict_batch, ids=docs.ids)
    sys.stdout.write(evaluation.evaluation_table(ev))
    if args.out is not None:
        draw = evaluation.can_draw()
        written = evaluation.write_evaluation(args.out, ev, provenance=_provenance(args),
                                              label_sep=sep, id_column=args.id_col, draw=draw)
        print(f"wrote {args.out} ({', '.join(written)})", file=sys.stderr)
        if not draw and ev.confusion is not None:
            print(f"note: no confusion.png: matplotlib is not installed "
                  f"({install_hint('figures')})", file=sys.stderr)
    return 0


def _check_columns(args: argparse.Namespace) -> None:
    named = [("--text-col", args.text_col), ("--label-col", args.label_col)]
    if args.id_col is not None:
        named.append(("--id-col", args.id_col))
    for i, (flag, col) in enumerate(named):
        for other, other_col in named[:i]:
            if col == other_col:
                raise OptionError(f"{other} and {flag} both name column {col!r}")


def check_out(out: Path) -> None:
    """``--out``: missing, empty or an earlier evaluation (:func:`gfbgcn.core.atomic.
    check_output_dir`), and not inside a model, run or evaluation directory, which a stray
    directory would spoil."""
    from gfbgcn.core.atomic import check_output_dir
    from gfbgcn.core.paths.outputs import inside_gfbgcn_directory

    check_output_dir(out, "evaluation", "out")
    kind = inside_gfbgcn_directory(out.absolute())
    if kind is not None:
        raise OptionError(f"--out {out}: lies inside a gfbgcn {kind} directory; refusing to "
                          "write into it (choose a path outside)")


def _provenance(args: argparse.Namespace) -> dict[str, Any]:
    """What ``metrics.json`` says made it: the command, the model, the input and its columns."""
    from gfbgcn.core.io import sha256_file

    source = Path(args.input)
    return {"command": ["gfbgcn", *getattr(args, "command_argv", [])],
            "model": str(Path(args.model_dir).absolute()),
            "input": {"path": str(source.absolute()), "sha256": sha256_file(source),
                      "encoding": args.encoding,
                      "columns": {"text": args.text_col, "label": args.label_col,
                                  "id": args.id_col}}}

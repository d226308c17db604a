"""`gfbgcn predict`: classify new documents with a model saved by `train --save`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gfbgcn.cli.options import add_parameter_arguments
from gfbgcn.cli.runtime.argtypes import encoding_name, int_in, nonempty_path
from gfbgcn.cli.runtime.device import device_from_args
from gfbgcn.core.errors import OptionError
from gfbgcn.core.outputs import OutputFile, output_file
from gfbgcn.text.predict.io import predictions_csv, read_documents


def predict_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model_dir", type=nonempty_path, metavar="MODEL_DIR",
                        help="directory written by gfbgcn train ... --save")
    parser.add_argument("--text", action="append", default=[], help="a document to classify "
                        "(repeatable)")
    parser.add_argument("--input", type=nonempty_path, default=None, metavar="FILE",
                        help="documents: .csv/.tsv/.jsonl (column --text-col), other files or "
                        "'-' (stdin): one per line")
    parser.add_argument("--text-col", default="text", help="text column of --input (text)")
    parser.add_argument("--encoding", type=encoding_name, default="utf-8",
                        help="encoding of --input (utf-8)")
    parser.add_argument("--output", type=nonempty_path, default=None, metavar="FILE",
                        help="write the predictions CSV here instead of printing it: a file is "
                        "replaced whole (atomically), a device or pipe written through, '-' is "
                        "standard output; never an input or a file in MODEL_DIR")
    parser.add_argument("--top-k", type=int_in(1), default=1, help="also give the k most probable "
                        "labels (single-label models; 1; >= 1)")
    parser.add_argument("--predict-batch", type=int_in(1), default=1024, metavar="N",
                        help="documents classified per batch (1024; >= 1; memory, not results)")
    parser.add_argument("--self-embedding", choices=("zero", "mean"), default=None,
                        help="a new document's own layer-1 embedding (default: as saved, zero)")
    add_parameter_arguments(parser, ("device",))  # the classifier's, as for train


def predict(args: argparse.Namespace) -> int:
    """Classify new documents with a model saved by ``train --save``."""
    from gfbgcn.text.predict.saved import load_model_and_config

    device = device_from_args(args)
    if not args.text and args.input is None:
        raise OptionError("give --text and/or --input")
    output = _output(args)  # before any work: the input is read once (it may be a pipe)
    model, config = load_model_and_config(args.model_dir, self_embedding=args.self_embedding,
                                          device=device)
    sep = config["labels"].get("separator") or "|"
    docs = list(args.text)
    if args.input is not None:
        docs += read_documents(args.input, args.text_col, args.encoding)
    pred = model.predict(docs, batch_size=args.predict_batch)
    out = predictions_csv(pred, args.top_k, sep)
    output.write_text(out)
    if output.target is not None:
        print(f"wrote {len(docs)} prediction(s) to {output.name}", file=sys.stderr)
    return 0


def _output(args: argparse.Namespace) -> OutputFile:
    """Where the predictions go (standard output without ``--output``); never over the
    ``--input`` file or into the model directory (:func:`gfbgcn.core.outputs.output_file`)."""
    if args.output is None:
        return output_file("-", "output")
    model_dir = Path(args.model_dir)
    inputs = [args.input] if args.input not in (None, "-") else []
    if model_dir.is_dir():
        inputs += [str(path) for path in model_dir.iterdir()]
    return output_file(args.output, "output", inputs=inputs)

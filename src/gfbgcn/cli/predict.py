"""`gfbgcn predict`: classify new documents with a model saved by `train --save`.

Input: ``--text`` (repeatable) and/or ``--input FILE`` (``.csv``, ``.tsv``, ``.jsonl`` with a
``--text-col`` column; any other extension, or ``-`` for standard input: one document per line).
Undecodable bytes are replaced (U+FFFD) with a warning naming the first such line, so the output
always has one row per input document.  Output: CSV with ``row, label, probability`` (and
``label_2, probability_2, ...`` for ``--top-k``; multi-label models give ``labels`` joined by
their separator and their ``probabilities``).
"""

from __future__ import annotations

import argparse
import codecs
import csv
import io
import sys
import warnings
from pathlib import Path

from gfbgcn.cli.options import add_parameter_arguments
from gfbgcn.cli.runtime.argtypes import encoding_name, int_in, nonempty_path
from gfbgcn.cli.runtime.device import device_from_args
from gfbgcn.core.errors import InputError, OptionError
from gfbgcn.core.outputs import OutputFile, output_file
from gfbgcn.text.corpus.records import lines_of, read_table, table_format


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
    parser.add_argument("--encoder", type=nonempty_path, default=None, metavar="MODEL",
                        help="where the sentence encoder of a model trained with one is now, "
                        "when it has moved (the same files: checked; default: where it was)")
    add_parameter_arguments(parser, ("device",))  # the classifier's, as for train


def predict(args: argparse.Namespace) -> int:
    """Classify new documents with a model saved by ``train --save``."""
    from gfbgcn.text.predict.saved import load_model_and_config

    device = device_from_args(args)
    if not args.text and args.input is None:
        raise OptionError("give --text and/or --input")
    output = _output(args)  # before any work: the input is read once (it may be a pipe)
    model, config = load_model_and_config(args.model_dir, self_embedding=args.self_embedding,
                                          device=device, encoder=args.encoder)
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


# ---------------------------------------------------------------------------------------------
# The documents read and the predictions written


def _decode(raw: bytes, encoding: str, source: str) -> str:
    """Text of a plain input file: a UTF-16 or UTF-8 byte-order mark decides the encoding, as
    for corpus files (:func:`gfbgcn.text.corpus.records.decode_lines`)."""
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        encoding = "utf-16"
    try:
        return raw.decode(encoding)
    except UnicodeDecodeError as err:
        line = raw[: err.start].count(b"\n") + 1
        warnings.warn(f"{source}: bytes that are not valid {encoding} (first at line {line}) "
                      "were replaced by U+FFFD", stacklevel=2)
        return raw.decode(encoding, errors="replace")


def _read_input(path: Path) -> bytes:
    """The bytes of an input file, a named pipe or a process substitution (``<(cmd)``, a
    ``/dev/fd/N`` pipe): anything readable that is not a directory."""
    if path.is_dir():
        raise InputError(f"{path}: is a directory, not a file of documents")
    if not path.exists():
        raise InputError(f"input file not found: {path}")
    try:
        with open(path, "rb") as fh:  # a pipe has no size: read to its end
            return fh.read()
    except OSError as err:
        raise InputError(f"{path}: cannot read ({err.strerror or err})") from None


def read_documents(source: str, text_col: str = "text", encoding: str = "utf-8") -> list[str]:
    """The documents of ``source`` (a path or ``-``), see the module docstring."""
    if source == "-":
        raw = sys.stdin.buffer.read()
        suffix = ""
    else:
        raw = _read_input(Path(source))
        suffix = Path(source).suffix.lower()
    if suffix in (".csv", ".tsv", ".tab", ".jsonl", ".ndjson"):
        return _table_documents(source, raw, table_format(source) or "csv", text_col, encoding)
    text = _decode(raw, encoding, source)
    if text.startswith("\ufeff"):
        text = text[1:]
    # only \n, \r\n and \r end a document (str.splitlines also splits at form feeds, U+2028)
    return [line.rstrip("\r\n") for line in lines_of(text)]


def _table_documents(source: str, raw: bytes, fmt: str, text_col: str, encoding: str
                     ) -> list[str]:
    """One document per record of a CSV/TSV/JSONL file; a malformed record (an unclosed quote,
    a wrong column count) is an error naming its line, never a merged or dropped document."""
    table = read_table(source, fmt, encoding, replace=True, raw=raw)
    for suspect in table.suspects:
        warnings.warn(f"{source}: {suspect}", stacklevel=3)
    docs = []
    for row in table.rows:
        if row.error is not None:
            raise InputError(f"{source}:{row.line}: {row.error}")
        assert row.values is not None
        if text_col not in row.values:
            where = "column" if fmt != "jsonl" else "key"
            raise InputError(f"{source}:{row.line}: no {where} {text_col!r} (found: "
                             f"{', '.join(map(str, row.values)) or 'none'}); use --text-col")
        docs.append("" if row.values[text_col] is None else str(row.values[text_col]))
    if fmt != "jsonl" and text_col not in table.columns:
        raise InputError(f"{source}: no column {text_col!r} (columns: "
                         f"{', '.join(table.columns)}); use --text-col")
    return docs


def predictions_csv(pred, top_k: int = 1, label_sep: str = "|") -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    if pred.multi_label:
        writer.writerow(["row", "labels", "probabilities"])
        names = pred.label_names
        for i, labels in enumerate(pred.labels):
            probs = [f"{pred.probabilities[i, names.index(lab)]:.6f}" for lab in labels]
            writer.writerow([i, label_sep.join(labels), label_sep.join(probs)])
        return buf.getvalue()
    k = max(1, min(top_k, len(pred.label_names)))
    header = ["row", "label", "probability"]
    for j in range(2, k + 1):
        header += [f"label_{j}", f"probability_{j}"]
    writer.writerow(header)
    for i, top in enumerate(pred.top_k(k)):
        row: list = [i]
        for label, prob in top:
            row += [label, f"{prob:.6f}"]
        writer.writerow(row)
    return buf.getvalue()


# ---------------------------------------------------------------------------------------------
# gfbgcn predict (the verb; wired by gfbgcn.cli)



"""``gfbgcn predict``, the verb and its input and output: documents from files or standard input, and the
predictions as CSV.

Input: ``--text`` (repeatable) and/or ``--input FILE`` (``.csv``, ``.tsv``, ``.jsonl`` with a
``--text-col`` column; any other extension, or ``-`` for standard input: one document per line).
Undecodable bytes are replaced (U+FFFD) with a warning naming the first such line, so the output
always has one row per input document.  Output: CSV with ``row, label, probability`` (and
``label_2, probability_2, ...`` for ``--top-k``; multi-label models give ``labels`` joined by
their separator and their ``probabilities``).
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
import warnings
from pathlib import Path

from gfbgcn.core.device import add_device_argument, device_from_args
from gfbgcn.core.io import atomic_write_text
from gfbgcn.core.validate import encoding_name, int_in

from gfbgcn.text.corpus.records import lines_of, read_table, table_format


class InputError(ValueError):
    pass


def _decode(raw: bytes, encoding: str, source: str) -> str:
    try:
        return raw.decode(encoding)
    except UnicodeDecodeError as err:
        line = raw[: err.start].count(b"\n") + 1
        warnings.warn(f"{source}: bytes that are not valid {encoding} (first at line {line}) "
                      "were replaced by U+FFFD", stacklevel=2)
        return raw.decode(encoding, errors="replace")


def read_documents(source: str, text_col: str = "text", encoding: str = "utf-8") -> list[str]:
    """The documents of ``source`` (a path or ``-``), see the module docstring."""
    if source == "-":
        raw = sys.stdin.buffer.read()
        suffix = ""
    else:
        path = Path(source)
        if not path.is_file():
            raise InputError(f"input file not found: {path}")
        raw = path.read_bytes()
        suffix = path.suffix.lower()
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


def predict_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model_dir", metavar="MODEL_DIR", help="directory written by "
                        "gfbgcn train ... --save")
    parser.add_argument("--text", action="append", default=[], help="a document to classify "
                        "(repeatable)")
    parser.add_argument("--input", default=None, metavar="FILE", help="documents: .csv/.tsv/"
                        ".jsonl (column --text-col), other files or '-' (stdin): one per line")
    parser.add_argument("--text-col", default="text", help="text column of --input (text)")
    parser.add_argument("--encoding", type=encoding_name, default="utf-8",
                        help="encoding of --input (utf-8)")
    parser.add_argument("--output", default=None, metavar="FILE", help="write the predictions "
                        "CSV here (atomically) instead of printing it")
    parser.add_argument("--top-k", type=int_in(1), default=1, help="also give the k most probable "
                        "labels (single-label models; 1)")
    parser.add_argument("--batch-size", type=int_in(1), default=1024, help="documents per batch (1024)")
    parser.add_argument("--self-embedding", choices=("zero", "mean"), default=None,
                        help="a new document's own layer-1 embedding (default: as saved, zero)")
    add_device_argument(parser)


def predict(args: argparse.Namespace) -> int:
    """Classify new documents with a model saved by ``train --save``."""
    from gfbgcn.text.predict.saved import ModelLoadError, load_model, read_config

    device = device_from_args(args)
    if not args.text and args.input is None:
        print("error: give --text and/or --input", file=sys.stderr)
        return 2
    try:
        model = load_model(args.model_dir, self_embedding=args.self_embedding, device=device)
        sep = read_config(args.model_dir)["labels"].get("separator") or "|"
    except ModelLoadError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    docs = list(args.text)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            if args.input is not None:
                docs += read_documents(args.input, args.text_col, args.encoding)
        except InputError as err:
            print(f"error: {err}", file=sys.stderr)
            return 2
        pred = model.predict(docs, batch_size=args.batch_size)
    for w in caught:
        print(f"warning: {w.message}", file=sys.stderr)
    out = predictions_csv(pred, args.top_k, sep)
    if args.output:
        atomic_write_text(args.output, out)
        print(f"wrote {len(docs)} prediction(s) to {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(out)
    return 0

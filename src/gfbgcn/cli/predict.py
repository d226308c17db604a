"""`gfbgcn predict`: classify new documents with a model saved by `train --save`.

Input: ``--text`` (repeatable) and/or ``--input FILE`` (``.csv``, ``.tsv``, ``.jsonl`` with a
``--text-col`` column; any other extension, or ``-`` for standard input: one document per line).
Undecodable bytes are replaced (U+FFFD) with a warning naming the first such line, so the output
always has one row per input document.  Output: CSV with ``row, label, probability`` (and
``label_2, probability_2, ...`` for ``--top-k``; multi-label models give ``labels`` joined by
their separator and their ``probabilities``); ``--id-col COL`` of a table input adds that column,
under its own name, after ``row`` (empty for the ``--text`` documents).
"""

from __future__ import annotations

import argparse
import codecs
import csv
import io
import sys
import warnings
from pathlib import Path

from gfbgcn.cli.options import add_saved_model_arguments
from gfbgcn.cli.runtime.argtypes import (
    encoding_name,
    input_directory,
    input_stream,
    int_in,
    nonempty_path,
)
from gfbgcn.cli.runtime.device import device_from_args
from gfbgcn.core.errors import InputError, OptionError
from gfbgcn.core.paths.inputs import read_stream
from gfbgcn.core.paths.outputs import OutputFile, output_file
from gfbgcn.text.corpus.records import lines_of, read_table, table_format
from gfbgcn.text.corpus.table import id_text

#: The extensions read as tables (with columns); any other file is one document per line.
TABLE_SUFFIXES = (".csv", ".tsv", ".tab", ".jsonl", ".ndjson")


def predict_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model_dir", type=input_directory, metavar="MODEL_DIR",
                        help="directory written by gfbgcn train ... --save")
    parser.add_argument("--text", action="append", default=[], help="a document to classify "
                        "(repeatable)")
    parser.add_argument("--input", type=input_stream, default=None, metavar="FILE",
                        help="documents: .csv/.tsv/.jsonl (column --text-col), other files or "
                        "'-' (stdin): one per line")
    parser.add_argument("--text-col", default="text", help="text column of --input (text)")
    parser.add_argument("--id-col", default=None, metavar="COL",
                        help="a column of a .csv/.tsv/.jsonl --input copied into the output, "
                        "under its own name (e.g. the documents' ids)")
    parser.add_argument("--encoding", type=encoding_name, default="utf-8",
                        help="encoding of --input (utf-8)")
    parser.add_argument("--output", type=nonempty_path, default=None, metavar="FILE",
                        help="write the predictions CSV here instead of printing it: a file is "
                        "replaced whole (atomically), a device or pipe written through, '-' is "
                        "standard output; never an input or a file in MODEL_DIR")
    parser.add_argument("--top-k", type=int_in(1), default=1, help="also give the k most probable "
                        "labels (single-label models; 1; >= 1)")
    add_saved_model_arguments(parser)


def predict(args: argparse.Namespace) -> int:
    """Classify new documents with a model saved by ``train --save``."""
    from gfbgcn.text.predict.saved import load_model_and_config

    device = device_from_args(args)
    if not args.text and args.input is None:
        raise OptionError("give --text and/or --input")
    _check_id_col(args)
    output = _output(args)  # before any work: the input is read once (it may be a pipe)
    model, config = load_model_and_config(args.model_dir, self_embedding=args.self_embedding,
                                          device=device, encoder=args.encoder)
    sep = config["labels"].get("separator") or "|"
    docs = list(args.text)
    ids: list[str] | None = None
    if args.id_col is not None:
        read, ids = read_documents_and_ids(args.input, args.text_col, args.id_col,
                                           args.encoding)
        docs += read
        ids = [""] * len(args.text) + ids  # the --text documents come first and have none
    elif args.input is not None:
        docs += read_documents(args.input, args.text_col, args.encoding)
    pred = model.predict(docs, batch_size=args.predict_batch)
    out = predictions_csv(pred, args.top_k, sep, ids=ids, id_column=args.id_col)
    output.write_text(out)
    if output.target is not None:
        print(f"wrote {len(docs)} prediction(s) to {output.name}", file=sys.stderr)
    return 0


def _check_id_col(args: argparse.Namespace) -> None:
    """``--id-col`` names a column of a table input, distinct from the text column and from
    the output's own columns."""
    if args.id_col is None:
        return
    if args.input is None or Path(args.input).suffix.lower() not in TABLE_SUFFIXES:
        raise OptionError("--id-col needs an --input table (.csv, .tsv or .jsonl): one document "
                          "per line has no columns")
    if args.id_col == args.text_col:
        raise OptionError(f"--id-col and --text-col both name column {args.id_col!r}")
    if args.id_col in _OUTPUT_COLUMNS or args.id_col.startswith(("label_", "probability_")):
        raise OptionError(f"--id-col {args.id_col!r}: the predictions have a column of that "
                          "name; rename the column in the input")


#: The columns predictions_csv writes (an id column may not take one of these names).
_OUTPUT_COLUMNS = ("row", "label", "probability", "labels", "probabilities")


def _output(args: argparse.Namespace) -> OutputFile:
    """Where the predictions go (standard output without ``--output``); never over the
    ``--input`` file or into the model directory (:func:`gfbgcn.core.paths.outputs.output_file`)."""
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
    ``/dev/fd/N`` pipe), read once (:func:`gfbgcn.core.paths.inputs.read_stream`: a named pipe that
    nothing writes to, a directory, a socket or an endless device is one error line)."""
    return read_stream(path, "documents")


def read_documents(source: str, text_col: str = "text", encoding: str = "utf-8") -> list[str]:
    """The documents of ``source`` (a path or ``-``), see the module docstring."""
    if source == "-":
        raw = sys.stdin.buffer.read()
        suffix = ""
    else:
        raw = _read_input(Path(source))
        suffix = Path(source).suffix.lower()
    if suffix in TABLE_SUFFIXES:
        return _table_documents(source, raw, table_format(source) or "csv", text_col,
                                encoding)[0]
    text = _decode(raw, encoding, source)
    if text.startswith("\ufeff"):
        text = text[1:]
    # only \n, \r\n and \r end a document (str.splitlines also splits at form feeds, U+2028)
    return [line.rstrip("\r\n") for line in lines_of(text)]


def read_documents_and_ids(source: str, text_col: str, id_col: str, encoding: str = "utf-8"
                           ) -> tuple[list[str], list[str]]:
    """The documents of the table file ``source`` (``.csv``, ``.tsv``, ``.jsonl``) and each
    one's ``id_col`` value as text (:func:`gfbgcn.text.corpus.table.id_text`; a JSONL record
    without the key: empty)."""
    fmt = table_format(source)
    if source == "-" or fmt is None:
        raise InputError(f"{source}: ids need a table (.csv, .tsv or .jsonl), not one document "
                         "per line")
    docs, ids = _table_documents(source, _read_input(Path(source)), fmt, text_col, encoding,
                                 id_col)
    assert ids is not None  # asked for
    return docs, ids


def _table_documents(source: str, raw: bytes, fmt: str, text_col: str, encoding: str,
                     id_col: str | None = None) -> tuple[list[str], list[str] | None]:
    """One document per record of a CSV/TSV/JSONL file, and the ``id_col`` of each when asked
    for; a malformed record (an unclosed quote, a wrong column count) is an error naming its
    line, never a merged or dropped document."""
    table = read_table(source, fmt, encoding, replace=True, raw=raw)
    for suspect in table.suspects:
        warnings.warn(f"{source}: {suspect}", stacklevel=3)
    docs = []
    ids: list[str] | None = None if id_col is None else []
    where = "column" if fmt != "jsonl" else "key"
    for row in table.rows:
        if row.error is not None:
            raise InputError(f"{source}:{row.line}: {row.error}")
        assert row.values is not None
        if text_col not in row.values:
            raise InputError(f"{source}:{row.line}: no {where} {text_col!r} (found: "
                             f"{', '.join(map(str, row.values)) or 'none'}); use --text-col")
        docs.append("" if row.values[text_col] is None else str(row.values[text_col]))
        if ids is not None and id_col is not None:
            ids.append(id_text(row.values.get(id_col)))
    for col, flag in ((text_col, "--text-col"), (id_col, "--id-col")):
        if col is not None and fmt != "jsonl" and col not in table.columns:
            raise InputError(f"{source}: no column {col!r} (columns: "
                             f"{', '.join(table.columns)}); use {flag}")
    if id_col is not None and fmt == "jsonl" and table.rows and not any(
            row.values and id_col in row.values for row in table.rows):
        raise InputError(f"{source}: no record has the key {id_col!r}; use --id-col")
    return docs, ids


def predictions_csv(pred, top_k: int = 1, label_sep: str = "|", *,
                    ids: list[str] | None = None, id_column: str | None = None) -> str:
    """The predictions as CSV (see the module docstring); ``ids``: one per document, written
    after ``row`` in a column named ``id_column`` (``id`` by default)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    if ids is not None and len(ids) != len(pred.labels):
        raise ValueError(f"{len(ids)} ids for {len(pred.labels)} predictions")
    id_header = [id_column or "id"] if ids is not None else []

    def first(i: int) -> list:
        return [i, ids[i]] if ids is not None else [i]

    if pred.multi_label:
        writer.writerow(["row", *id_header, "labels", "probabilities"])
        names = pred.label_names
        for i, labels in enumerate(pred.labels):
            probs = [f"{pred.probabilities[i, names.index(lab)]:.6f}" for lab in labels]
            writer.writerow([*first(i), label_sep.join(labels), label_sep.join(probs)])
        return buf.getvalue()
    k = max(1, min(top_k, len(pred.label_names)))
    header = ["row", *id_header, "label", "probability"]
    for j in range(2, k + 1):
        header += [f"label_{j}", f"probability_{j}"]
    writer.writerow(header)
    for i, top in enumerate(pred.top_k(k)):
        row: list = first(i)
        for label, prob in top:
            row += [label, f"{prob:.6f}"]
        writer.writerow(row)
    return buf.getvalue()


# ---------------------------------------------------------------------------------------------
# gfbgcn predict (the verb; wired by gfbgcn.cli)



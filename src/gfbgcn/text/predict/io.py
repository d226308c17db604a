"""``gfbgcn predict``, the verb and its input and output: documents from files or standard input,
and the predictions as CSV.

Input: ``--text`` (repeatable) and/or ``--input FILE`` (``.csv``, ``.tsv``, ``.jsonl`` with a
``--text-col`` column; any other extension, or ``-`` for standard input: one document per line).
Undecodable bytes are replaced (U+FFFD) with a warning naming the first such line, so the output
always has one row per input document.  Output: CSV with ``row, label, probability`` (and
``label_2, probability_2, ...`` for ``--top-k``; multi-label models give ``labels`` joined by
their separator and their ``probabilities``).
"""

from __future__ import annotations

import codecs
import csv
import io
import sys
import warnings
from pathlib import Path

from gfbgcn.core.errors import InputError
from gfbgcn.text.corpus.records import lines_of, read_table, table_format


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



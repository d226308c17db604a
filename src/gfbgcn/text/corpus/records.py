"""The records of a user's table file (CSV, TSV or JSONL), each with the line it starts on.

Shared by the corpus reader (:mod:`gfbgcn.text.corpus.table`) and ``gfbgcn predict --input``
(:mod:`gfbgcn.cli.predict`), so both read a file the same way:

* **Encoding.** A UTF-8 byte-order mark (Excel's "CSV UTF-8") is dropped; a UTF-16 mark selects
  UTF-16 whatever ``encoding`` says.  Undecodable bytes are reported with their line (or, with
  ``replace=True``, replaced by U+FFFD with one warning).
* **CSV** follows RFC 4180 quoting, strictly: a quote that is never closed, or text after a
  closing quote, is an error naming the line the record *starts* on, instead of silently
  swallowing the rows that follow.  Reading resumes on the next line, so with
  ``--skip-bad-rows`` only the broken line is lost.  A quoted field that spans lines, where
  both its first and last line look like complete rows, is reported as a likely unclosed quote
  (:attr:`Table.suspects`).
* **TSV** is one record per line, fields separated by tabs, with no quoting at all (a text may
  start with ``"``).
* No field-size limit (the ``csv`` module's default of 131,072 characters is lifted while
  reading: a long web page is one document, not an error).
"""

from __future__ import annotations

import codecs
import contextlib
import csv
import io
import json
import sys
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gfbgcn.core.errors import CorpusFormatError

FORMATS = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl"}


@dataclass
class Row:
    """One record: its first line, its values (``None`` when unreadable) or the error."""

    line: int
    values: dict[str, Any] | None = None
    error: str | None = None


@dataclass
class Table:
    """All records of a file; ``columns`` is the CSV/TSV header (JSONL: keys of the first
    object)."""

    path: str
    fmt: str
    columns: list[str]
    rows: list[Row]
    suspects: list[str] = field(default_factory=list)  # "line N: ..." possible merged rows


def table_format(path: str | Path) -> str | None:
    """``"csv"``, ``"tsv"``, ``"jsonl"`` by extension, else ``None``."""
    return FORMATS.get(Path(path).suffix.lower())


@contextlib.contextmanager
def _no_field_limit() -> Iterator[None]:
    before = csv.field_size_limit()
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))
    try:
        yield
    finally:
        csv.field_size_limit(before)


def lines_of(text: str) -> list[str]:
    """Physical lines with their endings; only \\n, \\r\\n and \\r end a line (unlike
    ``str.splitlines``, which also splits at U+2028 and friends inside a text)."""
    return io.StringIO(text, newline="").readlines()


def decode_lines(raw: bytes, encoding: str, source: str, replace: bool = False
                 ) -> tuple[list[str], dict[int, str]]:
    """Physical lines of ``raw`` and ``{line number: decoding error}`` (see module doc)."""
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        encoding = "utf-16"
    elif raw.startswith(codecs.BOM_UTF8) and codecs.lookup(encoding).name in ("utf-8", "utf-8-sig"):
        raw, encoding = raw[len(codecs.BOM_UTF8):], "utf-8"
    try:
        return lines_of(raw.decode(encoding)), {}
    except UnicodeDecodeError as err:
        first = raw[: err.start].count(b"\n") + 1
        if replace:
            warnings.warn(f"{source}: bytes that are not valid {encoding} (first at line "
                          f"{first}) were replaced by U+FFFD", stacklevel=3)
            return lines_of(raw.decode(encoding, errors="replace")), {}
        if codecs.lookup(encoding).name.startswith("utf-16"):  # no line-by-line decoding
            return (lines_of(raw.decode(encoding, errors="replace")),
                    {first: f"undecodable bytes ({encoding}): {err.reason}"})
    # Decode line by line so that each bad byte sequence is reported with its line.
    lines, bad = [], {}
    for number, bline in enumerate(raw.splitlines(keepends=True), 1):
        try:
            lines.append(bline.decode(encoding))
        except UnicodeDecodeError as err:
            bad[number] = f"undecodable bytes ({encoding}): {err.reason} at byte {err.start}"
            lines.append("\n")
    return lines, bad


class _Feed:
    """An iterator over ``lines`` from ``pos`` that tells how many lines a reader consumed."""

    def __init__(self, lines: list[str], pos: int) -> None:
        self.lines, self.pos = lines, pos

    def __iter__(self) -> _Feed:
        return self

    def __next__(self) -> str:
        if self.pos >= len(self.lines):
            raise StopIteration
        self.pos += 1
        return self.lines[self.pos - 1]


def _quoting_error(err: csv.Error, first: int, last: int) -> str:
    if "end of data" in str(err):
        return (f"unclosed quote: the quoted field opened on line {first} never closes "
                "(a text starting with '\"' must end with '\"'; double a '\"' inside it)")
    return (f"malformed quoting ({err}) in the record starting here (read up to line {last}): "
            "a stray or unclosed '\"'?")


def split_records(lines: list[str], fmt: str) -> Iterator[tuple[int, int, list[str] | None,
                                                                 str | None]]:
    """``(first line, last line, fields or None, error or None)`` per record (1-based lines).

    After a CSV quoting error, reading resumes on the line after the record's first line.
    """
    options: dict[str, Any] = ({"delimiter": "\t", "quoting": csv.QUOTE_NONE} if fmt == "tsv"
               else {"delimiter": ",", "strict": True})
    pos = 0
    with _no_field_limit():
        while pos < len(lines):
            feed = _Feed(lines, pos)
            reader = csv.reader(feed, **options)
            start = pos
            try:
                for fields in reader:
                    yield start + 1, feed.pos, fields, None
                    start = feed.pos
                pos = len(lines)
            except csv.Error as err:
                yield start + 1, feed.pos, None, _quoting_error(err, start + 1, feed.pos)
                pos = start + 1


def _looks_like_row(line: str, delimiter: str, ncols: int) -> bool:
    parts = line.rstrip("\r\n").split(delimiter)
    return ncols > 1 and len(parts) == ncols and all(p.strip().strip('"') for p in parts)


def _delimited(path: str, fmt: str, lines: list[str], bad: dict[int, str]) -> Table:
    table = Table(path, fmt, [], [])
    delimiter = "\t" if fmt == "tsv" else ","
    for first, last, fields, error in split_records(lines, fmt):
        if first in bad:
            table.rows.append(Row(first, error=bad[first]))
            continue
        if error is not None:
            table.rows.append(Row(first, error=error))
            continue
        assert fields is not None
        if not fields or (len(fields) == 1 and not fields[0].strip()):
            continue  # blank line
        if not table.columns:
            table.columns = _header(path, first, fields)
            continue
        if len(fields) != len(table.columns):
            table.rows.append(Row(first, error=f"expected {len(table.columns)} columns "
                                  f"({', '.join(table.columns)}), found {len(fields)}"))
            continue
        if last > first and all(_looks_like_row(lines[i - 1], delimiter, len(table.columns))
                                for i in (first, last)):
            table.suspects.append(f"line {first}: a quoted field runs to line {last} and both "
                                  "lines look like rows of their own (an unclosed quote?)")
        table.rows.append(Row(first, dict(zip(table.columns, fields))))
    return table


def _header(path: str, line: int, fields: list[str]) -> list[str]:
    """The column names of a header row; a name given twice is refused (which one holds the
    text would be a guess)."""
    columns = [c.strip() for c in fields]
    repeated = sorted({c for c in columns if columns.count(c) > 1})
    if repeated:
        raise CorpusFormatError(f"{path}:{line}: column name(s) {', '.join(map(repr, repeated))} "
                                "appear more than once in the header")
    return columns


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json.loads`` hook: a key given twice in one object is an error, not "last one wins"."""
    keys = [k for k, _ in pairs]
    repeated = sorted({k for k in keys if keys.count(k) > 1})
    if repeated:
        raise ValueError(f"key(s) {', '.join(map(repr, repeated))} appear more than once")
    return dict(pairs)


def _jsonl(path: str, lines: list[str], bad: dict[int, str]) -> Table:
    table = Table(path, "jsonl", [], [])
    for number, line in enumerate(lines, 1):
        if number in bad:
            table.rows.append(Row(number, error=bad[number]))
            continue
        if not line.strip():
            continue
        try:
            obj = json.loads(line, object_pairs_hook=_unique_keys)
        except json.JSONDecodeError as err:
            table.rows.append(Row(number, error=f"invalid JSON: {err.msg}"))
            continue
        except RecursionError:  # json recurses once a level: a hostile line could go deep
            table.rows.append(Row(number, error="invalid JSON: nested too deeply"))
            continue
        except ValueError as err:
            table.rows.append(Row(number, error=f"invalid JSON object: {err}"))
            continue
        if not isinstance(obj, dict):
            table.rows.append(Row(number, error="a JSON object per line is expected"))
            continue
        if not table.columns:
            table.columns = [str(k) for k in obj]
        table.rows.append(Row(number, obj))
    return table


def read_table(path: str | Path, fmt: str, encoding: str = "utf-8", *,
               replace: bool = False, raw: bytes | None = None) -> Table:
    """Every record of ``path`` (or of ``raw``, its bytes) in format ``fmt``."""
    source = str(path)
    data = Path(path).read_bytes() if raw is None else raw
    lines, bad = decode_lines(data, encoding, source, replace)
    if fmt == "jsonl":
        return _jsonl(source, lines, bad)
    return _delimited(source, fmt, lines, bad)

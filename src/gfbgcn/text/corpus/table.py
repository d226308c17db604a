"""Users' own corpora: CSV, TSV or JSONL files with a text, a label and an optional split column."""

from __future__ import annotations

import json
import math
import unicodedata
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from gfbgcn.core.errors import CorpusFormatError, InputError
from gfbgcn.core.paths.inputs import is_regular_file
from gfbgcn.text.corpus.corpus import Corpus
from gfbgcn.text.corpus.records import Row, Table, read_table, table_format


def _split_flag(value: str, path: Path, lineno: int) -> bool:
    v = value.strip().lower()
    if v in ("train", "training", "tr"):
        return True
    if v in ("test", "testing", "te"):
        return False
    raise CorpusFormatError(f"{path}:{lineno}: split must be 'train' or 'test', got {value!r}")


class LeakageWarning(UserWarning):
    """Some test documents also occur, with the same text, among the training documents."""


#: The split column used when present and none is named.
DEFAULT_SPLIT_COL = "split"


def _present(table: Table) -> set[str]:
    if table.fmt == "jsonl":
        return set().union(*(r.values for r in table.rows if r.values is not None))
    return set(table.columns)


def _check_columns(table: Table, wanted: dict[str, str]) -> None:
    """Fail on a header without a named column (naming the columns found), or on one column
    named for two roles (the labels would be read as the texts)."""
    roles: dict[str, str] = {}
    for parameter, col in wanted.items():
        if col in roles:
            raise CorpusFormatError("{0} and {1} both name column {col!r}", roles[col],
                                    parameter, col=col)
        roles[col] = parameter
    present = _present(table)
    missing = [(parameter, col) for parameter, col in wanted.items() if col not in present]
    if missing and (present or table.fmt != "jsonl"):
        # one template field per missing column and its parameter (the CLI shows the option)
        named = " or ".join(f"{{col{i}!r}} ({{{i}}})" for i in range(len(missing)))
        raise CorpusFormatError(
            "{path}:1: no column " + named + "; {where} found: {found}{hint}",
            *(parameter for parameter, _ in missing), path=str(table.path),
            where="keys" if table.fmt == "jsonl" else "columns",
            found=", ".join(repr(c) for c in table.columns) or "none",
            hint=_separator_hint(table), **{f"col{i}": col for i, (_, col) in enumerate(missing)})


def _separator_hint(table: Table) -> str:
    """A hint for a delimited file read with the wrong separator: one column whose name holds
    ``;`` (as spreadsheets in many locales write CSV) or a tab."""
    if table.fmt == "jsonl" or len(table.columns) != 1:
        return ""
    header = table.columns[0]
    for sep, name, fix in ((";", "';'", "save it with ',' separators (or as .tsv with tabs)"),
                           ("\t", "tabs", "name it .tsv")):
        if sep in header:
            return (f" (the header looks separated by {name}, but a .{table.fmt} file is read "
                    f"with {'tabs' if table.fmt == 'tsv' else 'commas'}: {fix})")
    return ""


def _split_column(table: Table, split_col: str | None) -> str | None:
    """The split column in use: the one named (it must exist), else ``split`` when any row
    fills it."""
    if split_col is not None:
        return split_col
    filled = any(r.values is not None and str(r.values.get(DEFAULT_SPLIT_COL) or "").strip()
                 for r in table.rows)
    return DEFAULT_SPLIT_COL if filled else None


def _text_problem(value: Any, column: str) -> str | None:
    if not isinstance(value, str):
        return (f"missing text (column {column!r})" if value is None
                else f"text (column {column!r}) must be a string, got JSON {_json_kind(value)}")
    return None if value.strip() else f"missing text (column {column!r})"


def _label_problem(value: Any, column: str) -> str | None:
    """Labels are strings or integers (``0``/``1`` labels are common in JSONL)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return f"missing label (column {column!r})"
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return None
    return f"label (column {column!r}) must be a string or an integer, got JSON {_json_kind(value)}"


def _json_kind(value: Any) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)  # NaN, Infinity
    kinds = {bool: "true/false", int: "number", float: "number", list: "list", dict: "object"}
    return next((name for kind, name in kinds.items() if isinstance(value, kind)), "value")


def _read_row(
    row: Row, cols: tuple[str, str, str | None], path: Path
) -> tuple[str, str, bool | None]:
    """``(text, label, is_train or None)`` of a record; :class:`CorpusFormatError` naming the
    line otherwise."""
    text_col, label_col, split_col = cols
    error = row.error
    if error is None and row.values is not None:
        error = (_text_problem(row.values.get(text_col), text_col)
                 or _label_problem(row.values.get(label_col), label_col))
    if error is not None or row.values is None:
        raise CorpusFormatError(f"{path}:{row.line}: {error}")
    split = None
    if split_col is not None:
        value = str(row.values.get(split_col) or "")
        if not value.strip():
            raise CorpusFormatError(f"{path}:{row.line}: missing split value (column "
                                    f"{split_col!r})")
        split = _split_flag(value, path, row.line)
    # NFC: one label typed as a precomposed and as a decomposed character ("é" / "e\u0301")
    # is one class, not two that look the same
    label = unicodedata.normalize("NFC", str(row.values[label_col]).strip())
    return row.values[text_col], label, split


def _read_rows(table: Table, cols: tuple[str, str, str | None], path: Path,
               skip_bad_rows: bool) -> tuple[list[str], list[str], list[bool], list[str]]:
    """Texts, labels and split flags of the usable rows, and the messages of skipped ones."""
    texts: list[str] = []
    labels: list[str] = []
    splits: list[bool] = []
    skipped: list[str] = []
    for row in table.rows:
        try:
            text, label, split = _read_row(row, cols, path)
        except CorpusFormatError as err:
            if not skip_bad_rows:
                raise CorpusFormatError("{err} (use {0} to skip such rows)", "skip_bad_rows",
                                        err=str(err)) from None
            skipped.append(str(err))
            continue
        texts.append(text)
        labels.append(label)
        if split is not None:
            splits.append(split)
    return texts, labels, splits, skipped


#: Why a corpus or labelled file must be a regular file (a pipe gives its bytes only once).
_READ_TWICE = ("; it may be read twice, its sha256 going into the records of a run or an "
               "evaluation (copy a stream to a file first)")


def _open_table(path: Path, encoding: str) -> Table:
    if path.is_dir():
        raise CorpusFormatError(f"{path}: is a directory, not a corpus file")
    if not is_regular_file(path, _READ_TWICE, CorpusFormatError):
        raise FileNotFoundError(f"corpus file not found: {path} (nor a benchmark name: "
                                "20ng, r8, r52, ohsumed)")
    fmt = table_format(path)
    if fmt is None:
        raise CorpusFormatError(f"{path}: unsupported extension {path.suffix.lower()!r} (csv, "
                                "tsv, jsonl)")
    return read_table(path, fmt, encoding)


def warn_on_leakage(texts: Sequence[str], is_train: np.ndarray, path: Path) -> None:
    """Warn when test documents repeat training documents word for word (the test accuracy
    would then measure memory, not generalisation)."""
    train_texts = {t.strip() for t, tr in zip(texts, is_train) if tr}
    leaked = sum(1 for t, tr in zip(texts, is_train) if not tr and t.strip() in train_texts)
    if leaked:
        warnings.warn(f"{path}: {leaked} test document(s) also occur in the training set with "
                      "the same text; their test accuracy is not a measure of generalisation",
                      LeakageWarning, stacklevel=3)


def load_table(
    path: str | Path,
    text_col: str = "text",
    label_col: str = "label",
    split_col: str | None = None,
    *,
    test_size: float = 0.1,
    seed: int = 0,
    skip_bad_rows: bool = False,
    encoding: str = "utf-8",
    name: str | None = None,
) -> Corpus:
    """Load a user's corpus from CSV, TSV or JSONL (by extension).

    Columns ``text_col`` and ``label_col`` are required and distinct. ``split_col`` (values
    train/test), when named, must exist and be filled on every row; when not named, a column
    ``split`` is used if any row fills it. Without a split column, a stratified ``test_size``
    share of documents becomes the test set, drawn with ``seed`` (recorded in the corpus
    notes). Texts are strings; labels strings or integers. A bad row (missing text or label,
    wrong column count, undecodable bytes, bad split value, a JSON list as text) raises
    :class:`CorpusFormatError` naming the file and line, unless ``skip_bad_rows`` is set, in
    which case the number skipped is recorded in the notes. How the file is read (encodings,
    quoting, TSV, long fields): :mod:`gfbgcn.text.corpus.records`.
    """
    path = Path(path)
    table = _open_table(path, encoding)
    wanted = {"text_col": text_col, "label_col": label_col}
    if split_col is not None:
        wanted["split_col"] = split_col
    _check_columns(table, wanted)
    cols = (text_col, label_col, _split_column(table, split_col))
    texts, labels, splits, skipped = _read_rows(table, cols, path, skip_bad_rows)
    if not texts:
        raise CorpusFormatError(f"{path}: no usable rows (corpus is empty)")
    notes: list[str] = [f"{path}: {suspect}" for suspect in table.suspects]
    if skipped:
        notes.append(f"skipped {len(skipped)} bad row(s); first: {skipped[0]}")
    if cols[2] is not None:
        is_train = np.array(splits, dtype=bool)
        warn_on_leakage(texts, is_train, path)
    else:
        is_train = stratified_train_mask(labels, test_size, seed)
        notes.append(
            f"no split column: stratified {test_size:.0%} test split drawn with seed {seed}"
        )
    return Corpus(name or path.stem, texts, labels, is_train, sources=[path], notes=notes)


def id_text(value: Any) -> str:
    """A record's id as text: a string as it is, a missing value as ``""``, any other JSON
    value (a number, ``true``) as JSON writes it, so ``12`` stays ``12`` and not ``12.0``."""
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


@dataclass
class LabelledDocuments:
    """The documents of a labelled file (``gfbgcn evaluate``): texts, label fields as written
    (NFC, stripped; a multi-label field still joined), ids (``None`` without an id column) and
    the line each record starts on."""

    texts: list[str]
    labels: list[str]
    ids: list[str] | None
    lines: list[int]


def read_labelled(path: str | Path, text_col: str = "text", label_col: str = "label",
                  id_col: str | None = None, *, encoding: str = "utf-8") -> LabelledDocuments:
    """The labelled documents of a CSV, TSV or JSONL file, read as :func:`load_table` reads a
    corpus (the same encodings, quoting and checks of each text and label), without a split:
    every row is a document to score.  A bad row is a :class:`CorpusFormatError` naming the
    file and line; a missing file an :class:`InputError`."""
    path = Path(path)
    if path.is_dir():
        raise InputError(f"{path}: is a directory, not a file of labelled documents")
    if not is_regular_file(path, _READ_TWICE):
        raise InputError(f"input file not found: {path}")
    fmt = table_format(path)
    if fmt is None:
        raise InputError(f"{path}: unsupported extension {path.suffix.lower()!r} (a labelled "
                         "file is .csv, .tsv or .jsonl)")
    table = read_table(path, fmt, encoding)
    wanted = {"text_col": text_col, "label_col": label_col}
    if id_col is not None:
        wanted["id_col"] = id_col
    _check_columns(table, wanted)
    out = LabelledDocuments([], [], [] if id_col is not None else None, [])
    for row in table.rows:
        text, label, _ = _read_row(row, (text_col, label_col, None), path)
        out.texts.append(text)
        out.labels.append(label)
        out.lines.append(row.line)
        if out.ids is not None and id_col is not None:
            assert row.values is not None  # _read_row refuses a row without values
            out.ids.append(id_text(row.values.get(id_col)))
    if not out.texts:
        raise CorpusFormatError(f"{path}: no labelled documents")
    for suspect in table.suspects:
        warnings.warn(f"{path}: {suspect}", stacklevel=2)
    return out


def stratified_train_mask(labels: Sequence[str], test_size: float, seed: int) -> np.ndarray:
    """Boolean train mask holding out ``test_size`` of each class (at least one doc stays train)."""
    if not 0.0 < test_size < 1.0:
        raise ValueError(f"test_size must be in (0, 1), got {test_size}")
    rng = np.random.default_rng(seed)
    labels_arr = np.asarray(labels)
    is_train = np.ones(len(labels_arr), dtype=bool)
    for cls in np.unique(labels_arr):
        idx = np.flatnonzero(labels_arr == cls)
        n_test = int(round(test_size * len(idx)))
        n_test = min(n_test, len(idx) - 1)
        if n_test > 0:
            is_train[rng.choice(idx, size=n_test, replace=False)] = False
    return is_train

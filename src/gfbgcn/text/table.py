"""Users' own corpora: CSV, TSV or JSONL files with a text, a label and an optional split column."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from gfbgcn.text.corpus import Corpus, CorpusFormatError


def _split_flag(value: str, path: Path, lineno: int) -> bool:
    v = value.strip().lower()
    if v in ("train", "training", "tr"):
        return True
    if v in ("test", "testing", "te"):
        return False
    raise CorpusFormatError(f"{path}:{lineno}: split must be 'train' or 'test', got {value!r}")


def _iter_table_rows(path: Path, fmt: str, encoding: str):
    """Yield ``(lineno, row_dict_or_None, error)`` for each record of a CSV/TSV/JSONL file."""
    raw = path.read_bytes()
    if fmt == "jsonl":
        for lineno, bline in enumerate(raw.split(b"\n"), 1):
            if not bline.strip():
                continue
            try:
                obj = json.loads(bline.decode(encoding))
            except UnicodeDecodeError as err:
                yield lineno, None, f"undecodable bytes ({encoding}): {err.reason}"
                continue
            except json.JSONDecodeError as err:
                yield lineno, None, f"invalid JSON: {err.msg}"
                continue
            if not isinstance(obj, dict):
                yield lineno, None, "a JSON object per line is expected"
                continue
            yield lineno, obj, None
        return
    delimiter = "\t" if fmt == "tsv" else ","
    # Decode line by line so that one bad byte sequence is reported with its line number.
    lines = raw.splitlines(keepends=True)
    decoded: list[str] = []
    bad: dict[int, str] = {}
    for i, bline in enumerate(lines, 1):
        try:
            decoded.append(bline.decode(encoding))
        except UnicodeDecodeError as err:
            bad[i] = f"undecodable bytes ({encoding}): {err.reason} at byte {err.start}"
            decoded.append("\n")
    reader = csv.reader(io.StringIO("".join(decoded)), delimiter=delimiter)
    header: list[str] | None = None
    for row in reader:
        lineno = reader.line_num
        if header is None:
            header = [h.strip() for h in row]
            continue
        if lineno in bad:
            yield lineno, None, bad[lineno]
            continue
        if not row or (len(row) == 1 and not row[0].strip()):
            continue
        if len(row) != len(header):
            yield lineno, None, f"expected {len(header)} columns, found {len(row)}"
            continue
        yield lineno, dict(zip(header, row)), None


def load_table(
    path: str | Path,
    text_col: str = "text",
    label_col: str = "label",
    split_col: str | None = "split",
    *,
    test_size: float = 0.1,
    seed: int = 0,
    skip_bad_rows: bool = False,
    encoding: str = "utf-8",
    name: str | None = None,
) -> Corpus:
    """Load a user's corpus from CSV, TSV or JSONL (by extension).

    Columns ``text_col`` and ``label_col`` are required; ``split_col`` (values train/test) is
    optional. Without it, a stratified ``test_size`` share of documents becomes the test set,
    drawn with ``seed`` (recorded in the corpus notes).  A bad row (missing text or label, wrong
    column count, undecodable bytes, bad split value) raises :class:`CorpusFormatError` naming
    the file and line, unless ``skip_bad_rows`` is set, in which case the number skipped is
    recorded in the notes.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"corpus file not found: {path}")
    suffix = path.suffix.lower()
    fmt = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl"}.get(
        suffix
    )
    if fmt is None:
        raise CorpusFormatError(f"{path}: unsupported extension {suffix!r} (csv, tsv, jsonl)")
    texts: list[str] = []
    labels: list[str] = []
    splits: list[bool] = []
    has_split: bool | None = None
    skipped: list[str] = []
    for lineno, row, error in _iter_table_rows(path, fmt, encoding):
        if error is None and row is not None:
            text, label = row.get(text_col), row.get(label_col)
            if text is None or (isinstance(text, str) and not text.strip()):
                error = f"missing text (column {text_col!r})"
            elif label is None or (isinstance(label, str) and not label.strip()):
                error = f"missing label (column {label_col!r})"
        if error is None and row is not None:
            split_value = row.get(split_col) if split_col else None
            if has_split is None:
                has_split = split_value not in (None, "")
            try:
                if has_split:
                    if split_value in (None, ""):
                        raise CorpusFormatError(f"{path}:{lineno}: missing split value")
                    splits.append(_split_flag(str(split_value), path, lineno))
            except CorpusFormatError as err:
                error = str(err).split(": ", 1)[1]
        if error is not None:
            message = f"{path}:{lineno}: {error}"
            if not skip_bad_rows:
                raise CorpusFormatError(message + " (use --skip-bad-rows to skip such rows)")
            skipped.append(message)
            continue
        assert row is not None
        texts.append(str(row[text_col]))
        labels.append(str(row[label_col]).strip())
    if not texts:
        raise CorpusFormatError(f"{path}: no usable rows (corpus is empty)")
    notes: list[str] = []
    if skipped:
        notes.append(f"skipped {len(skipped)} bad row(s); first: {skipped[0]}")
    if has_split:
        is_train = np.array(splits, dtype=bool)
    else:
        is_train = stratified_train_mask(labels, test_size, seed)
        notes.append(
            f"no split column: stratified {test_size:.0%} test split drawn with seed {seed}"
        )
    return Corpus(name or path.stem, texts, labels, is_train, sources=[path], notes=notes)


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

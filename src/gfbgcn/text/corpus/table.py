"""Users' own corpora: CSV, TSV or JSONL files with a text, a label and an optional split column."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from gfbgcn.text.corpus.corpus import Corpus, CorpusFormatError
from gfbgcn.text.corpus.records import Table, read_table, table_format


def _split_flag(value: str, path: Path, lineno: int) -> bool:
    v = value.strip().lower()
    if v in ("train", "training", "tr"):
        return True
    if v in ("test", "testing", "te"):
        return False
    raise CorpusFormatError(f"{path}:{lineno}: split must be 'train' or 'test', got {value!r}")


def _check_columns(table: Table, wanted: dict[str, str]) -> None:
    """Fail on a header without the text or label column, naming the columns found."""
    if table.fmt == "jsonl":
        present = set().union(*(r.values for r in table.rows if r.values is not None))
    else:
        present = set(table.columns)
    missing = [f"{col!r} ({option})" for option, col in wanted.items() if col not in present]
    if missing and (present or table.fmt != "jsonl"):
        found = ", ".join(repr(c) for c in table.columns) or "none"
        where = "keys" if table.fmt == "jsonl" else "columns"
        raise CorpusFormatError(f"{table.path}:1: no column {' or '.join(missing)}; {where} "
                                f"found: {found}")


def _has_split(table: Table, split_col: str | None) -> bool:
    """The split column counts when any readable row has a value in it (not just the first)."""
    if not split_col:
        return False
    return any(r.values is not None and str(r.values.get(split_col) or "").strip()
               for r in table.rows)


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
    optional; it is used when any row fills it (then every row must).  Without it, a
    stratified ``test_size`` share of documents becomes the test set,
    drawn with ``seed`` (recorded in the corpus notes).  A bad row (missing text or label, wrong
    column count, undecodable bytes, bad split value) raises :class:`CorpusFormatError` naming
    the file and line, unless ``skip_bad_rows`` is set, in which case the number skipped is
    recorded in the notes.  How the file is read (encodings, quoting, TSV, long fields):
    :mod:`gfbgcn.text.corpus.records`.
    """
    path = Path(path)
    if path.is_dir():
        raise CorpusFormatError(f"{path}: is a directory, not a corpus file")
    if not path.is_file():
        raise FileNotFoundError(f"corpus file not found: {path} (nor a benchmark name: "
                                "20ng, r8, r52, ohsumed)")
    fmt = table_format(path)
    if fmt is None:
        raise CorpusFormatError(f"{path}: unsupported extension {path.suffix.lower()!r} (csv, "
                                "tsv, jsonl)")
    table = read_table(path, fmt, encoding)
    _check_columns(table, {"--text-col": text_col, "--label-col": label_col})
    has_split = _has_split(table, split_col)
    texts: list[str] = []
    labels: list[str] = []
    splits: list[bool] = []
    skipped: list[str] = []
    for row in table.rows:
        lineno, error = row.line, row.error
        if error is None and row.values is not None:
            text, label = row.values.get(text_col), row.values.get(label_col)
            if text is None or (isinstance(text, str) and not text.strip()):
                error = f"missing text (column {text_col!r})"
            elif label is None or (isinstance(label, str) and not label.strip()):
                error = f"missing label (column {label_col!r})"
        if error is None and has_split:
            split_value = str(row.values.get(split_col) or "")  # type: ignore[union-attr]
            try:
                if not split_value.strip():
                    raise CorpusFormatError(f"{path}:{lineno}: missing split value (column "
                                            f"{split_col!r} is filled on other rows)")
                splits.append(_split_flag(split_value, path, lineno))
            except CorpusFormatError as err:
                error = str(err).split(": ", 1)[1]
        if error is not None:
            message = f"{path}:{lineno}: {error}"
            if not skip_bad_rows:
                raise CorpusFormatError(message + " (use --skip-bad-rows to skip such rows)")
            skipped.append(message)
            continue
        assert row.values is not None
        texts.append(str(row.values[text_col]))
        labels.append(str(row.values[label_col]).strip())
    if not texts:
        raise CorpusFormatError(f"{path}: no usable rows (corpus is empty)")
    notes: list[str] = [f"{path}: {suspect}" for suspect in table.suspects]
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

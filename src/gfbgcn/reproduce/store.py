"""A directory of finished runs, one JSON file each, so that grids resume after interruption."""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from gfbgcn.core.io import atomic_write_json, read_json
from gfbgcn.reproduce.record_schema import RecordSchema, record_problem

_SAFE = re.compile(r"[^A-Za-z0-9_.=-]+")


class RunStore:
    """Runs keyed by a mapping such as ``{"dataset": "r8", "model": "gcn", "seed": 0}``.

    Each finished run is one JSON file ``<root>/<k1=v1>__<k2=v2>...json`` written atomically;
    an interrupted grid re-run skips the keys already present.
    """

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def path(self, key: Mapping[str, Any]) -> Path:
        name = "__".join(f"{k}={_SAFE.sub('-', str(v))}" for k, v in key.items())
        return self.root / f"{name}.json"

    def done(self, key: Mapping[str, Any]) -> bool:
        """The run's record exists and is readable (a corrupt one is warned about and counts
        as missing, so the run is made again and its record replaced)."""
        path = self.path(key)
        return path.is_file() and _read_record(path) is not None

    def save(self, key: Mapping[str, Any], record: Mapping[str, Any]) -> Path:
        return atomic_write_json(self.path(key), {"key": dict(key), **record})

    def load(self, key: Mapping[str, Any]) -> dict[str, Any]:
        path = self.path(key)
        record = _read_record(path) if path.is_file() else None
        if record is None:
            raise FileNotFoundError(f"{path}: no readable run record")
        return record

    def records(self, schema: RecordSchema | Callable[[dict[str, Any]], RecordSchema] | None
                = None) -> Iterator[dict[str, Any]]:
        """Every readable record, sorted by file name; corrupt ones are skipped (warned).

        ``schema``: the fields the caller reads (:mod:`gfbgcn.reproduce.record_schema`), or a
        function giving them for a record (records of several shapes); a record that breaks
        them (a field missing, mistyped, NaN, a record of another task) is skipped with a
        warning naming the file and the field."""
        if not self.root.is_dir():
            return
        for path in sorted(self.root.glob("*=*.json")):  # records, not logs beside them
            record = _read_record(path)
            if record is None:
                continue
            fields = schema(record) if callable(schema) else schema
            if fields and not _meets(record, fields, path):
                continue
            yield record

    def load_checked(self, key: Mapping[str, Any], schema: RecordSchema
                     ) -> dict[str, Any] | None:
        """The record of ``key`` when it exists and meets ``schema``; ``None`` otherwise (a
        record that breaks it is warned about, naming the file and the field)."""
        path = self.path(key)
        record = _read_record(path) if path.is_file() else None
        return record if record is not None and _meets(record, schema, path) else None


def _meets(record: dict[str, Any], schema: RecordSchema, path: Path) -> bool:
    problem = record_problem(record, schema)
    if problem is None:
        return True
    warnings.warn(f"ignoring run record {path}: {problem[0]}: {problem[1]}; the report leaves "
                  "it out", stacklevel=3)
    return False


def _read_record(path: Path) -> dict[str, Any] | None:
    """The record in ``path``, or ``None`` with a warning naming the file when it is corrupt
    (truncated by a crash or a full disk, edited by hand, ...)."""
    try:
        record = read_json(path)
    except (OSError, ValueError) as err:
        reason = getattr(err, "msg", None) or str(err)
        warnings.warn(f"ignoring corrupt run record {path} ({reason}); the run counts as not "
                      "done", stacklevel=3)
        return None
    if not isinstance(record, dict):
        warnings.warn(f"ignoring corrupt run record {path} (not a JSON object); the run counts "
                      "as not done", stacklevel=3)
        return None
    return record

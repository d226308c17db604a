"""What a report reads from a run record, checked before it reads it.

A run record (:mod:`gfbgcn.reproduce.store`) is a JSON file anyone can edit, copy between result
directories or truncate.  A report declares the fields it reads as a :data:`RecordSchema`
(dotted path -> check); :meth:`gfbgcn.reproduce.store.RunStore.records` skips a record that breaks
it, with a warning naming the file and the field, so one bad record neither stops the report
("internal error") nor reaches a table: a NaN accuracy is refused here and never enters a mean
(it would turn the whole cell into "–").
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

#: ``None`` when the value is valid, else the problem in words.
Check = Callable[[Any], "str | None"]
#: dotted field path (``"test.accuracy"``) -> its check; every field is required.
RecordSchema = Mapping[str, Check]


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def text(value: Any) -> str | None:
    """A non-empty string."""
    return None if isinstance(value, str) and value else f"expected a string, got {value!r}"


def whole(low: int = 0) -> Check:
    """A whole number >= ``low``."""
    return lambda v: (None if _is_int(v) and v >= low
                      else f"expected a whole number >= {low}, got {v!r}")


def finite(low: float = 0.0, high: float = math.inf) -> Check:
    """A finite number in ``[low, high]`` (NaN and infinities refused)."""
    def check(v: Any) -> str | None:
        if not _is_number(v) or not math.isfinite(v):
            return f"expected a finite number, got {v!r}"
        return None if low <= v <= high else f"expected a number in [{low:g}, {high:g}], got {v}"

    return check


#: an accuracy, precision, recall or F1
fraction = finite(0.0, 1.0)


def one_of(*choices: str) -> Check:
    """One of ``choices`` (a record of another task names other data sets or models)."""
    return lambda v: None if v in choices else f"expected one of {list(choices)}, got {v!r}"


def mapping(value: Any) -> str | None:
    """A JSON object (its fields are read as they are, e.g. to be shown)."""
    return None if isinstance(value, dict) else f"expected an object, got {value!r}"


def numbers(value: Any) -> str | None:
    """A list of finite numbers (e.g. a model's learned lambdas)."""
    ok = isinstance(value, list) and all(_is_number(v) and math.isfinite(v) for v in value)
    return None if ok else "expected a list of finite numbers"


def optional(check: Check) -> Check:
    """``check``, except that the field may be absent or null."""
    def maybe(v: Any) -> str | None:
        return None if v is None else check(v)

    maybe.optional = True  # type: ignore[attr-defined]  # read by record_problem
    return maybe


def record_problem(record: Any, schema: RecordSchema) -> tuple[str, str] | None:
    """``(field, problem)`` of the first field of ``schema`` that ``record`` breaks, or
    ``None`` when it meets the schema."""
    for field, check in schema.items():
        value: Any = record
        for part in field.split("."):
            if not isinstance(value, dict) or part not in value:
                if getattr(check, "optional", False):
                    break
                return field, "missing"
            value = value[part]
        else:
            problem = check(value)
            if problem:
                return field, problem
    return None

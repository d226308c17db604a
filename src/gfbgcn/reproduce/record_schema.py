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
from typing import Any

from gfbgcn.core.field_checks import (  # noqa: F401  (the reports' names, re-exported)
    Check,
    Schema,
    finite,
    is_number,
    one_of,
    optional,
    schema_problem,
    whole,
)

#: dotted field path (``"test.accuracy"``) -> its check; every field is required unless its
#: check is :func:`optional`.
RecordSchema = Schema


def text(value: Any) -> str | None:
    """A non-empty string."""
    return None if isinstance(value, str) and value else f"expected a string, got {value!r}"


#: an accuracy, precision, recall or F1
fraction = finite(0.0, 1.0)


def mapping(value: Any) -> str | None:
    """A JSON object (its fields are read as they are, e.g. to be shown)."""
    return None if isinstance(value, dict) else f"expected an object, got {value!r}"


def numbers(value: Any) -> str | None:
    """A list of finite numbers (e.g. a model's learned lambdas)."""
    ok = isinstance(value, list) and all(is_number(v) and math.isfinite(v) for v in value)
    return None if ok else "expected a list of finite numbers"


#: ``(field, problem)`` of the first field a record breaks, or ``None``.
record_problem = schema_problem

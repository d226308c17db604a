"""Checks of the fields of a JSON object read back from a file, and one walk over a schema.

A *schema* maps a dotted field path (``"test.accuracy"``) to a :data:`Check`; a check returns
``None`` for a valid value, else the problem in words.  Saved model configurations
(:mod:`gfbgcn.text.predict.model_schema`) and run records are checked with these, so that one
rule (e.g. "a whole number is an ``int`` but not a ``bool``") says the same everywhere.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from typing import Any

#: ``None`` when the value is valid, else the problem in words.
Check = Callable[[Any], "str | None"]
#: dotted field path -> its check; a field is required unless its check is :func:`optional`.
Schema = Mapping[str, Check]


def is_whole(value: Any) -> bool:
    """An ``int`` that is not a ``bool`` (JSON ``true`` is no count)."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def whole(low: int = 0) -> Check:
    """A whole number >= ``low``."""
    return lambda v: (None if is_whole(v) and v >= low
                      else f"expected a whole number >= {low}, got {v!r}")


def finite(low: float = -math.inf, high: float = math.inf) -> Check:
    """A finite number in ``[low, high]`` (NaN and infinities refused)."""
    def check(v: Any) -> str | None:
        if not is_number(v) or not math.isfinite(v):
            return f"expected a finite number, got {v!r}"
        return None if low <= v <= high else f"expected a number in [{low:g}, {high:g}], got {v}"

    return check


def one_of(*choices: Any) -> Check:
    return lambda v: None if v in choices else f"expected one of {list(choices)}, got {v!r}"


def of_type(kind: type, name: str) -> Check:
    return lambda v: None if isinstance(v, kind) else f"expected {name}, got {type(v).__name__}"


_HEX = re.compile(r"[0-9a-f]{64}")


def sha256_hex(v: Any) -> str | None:
    return None if isinstance(v, str) and _HEX.fullmatch(v) else "expected a sha256 hex digest"


def file_digests(*required: str) -> Check:
    """An object of file names to sha256 digests, holding at least those of ``required``."""
    def check(v: Any) -> str | None:
        if not isinstance(v, dict):
            return "expected an object of file names to sha256 digests"
        missing = [name for name in required if name not in v]
        if missing:
            return f"digests of {missing} are missing (integrity checks cannot be skipped)"
        return next((f"{name}: {p}" for name, d in v.items() if (p := sha256_hex(d))), None)

    return check


def optional(check: Check, *, null: bool = True) -> Check:
    """``check``, except that the field may be absent (and null, unless ``null=False``); the
    fields below an absent optional object are not required either."""
    def maybe(v: Any) -> str | None:
        return None if v is None and null else check(v)

    maybe.optional = True  # type: ignore[attr-defined]  # read by schema_problem
    return maybe


def _is_optional(check: Check | None) -> bool:
    return bool(getattr(check, "optional", False))


def schema_problem(obj: Any, schema: Schema) -> tuple[str, str] | None:
    """``(field, problem)`` of the first field of ``schema`` that ``obj`` breaks (checked in
    the schema's order, so an object before its fields), or ``None`` when it meets it."""
    for field, check in schema.items():
        value: Any = obj
        parts = field.split(".")
        for i, part in enumerate(parts):
            if not isinstance(value, dict) or part not in value:
                absent = ".".join(parts[: i + 1])
                if _is_optional(check) or _is_optional(schema.get(absent)):
                    break
                return field, "missing"
            value = value[part]
        else:
            problem = check(value)
            if problem:
                return field, problem
    return None

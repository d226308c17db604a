"""The schema of a saved model's ``config.json``, checked field by field on every load.

Every field a loader reads is described here once: its type, its range, whether it must be
present. A model directory whose configuration breaks the schema is refused with one line,
``<dir>/config.json: FIELD: problem``, before any tensor is read; so is one without its
integrity digests (``sha256`` of the weights and vocabulary, ``config_sha256`` of the
configuration itself), which :mod:`gfbgcn.text.predict.saved` writes on every save.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gfbgcn.core.errors import ModelLoadError
from gfbgcn.text.train.models import INDUCTIVE_MODELS

FORMAT = "gfbgcn-text-model"
FORMAT_VERSION = 1
WEIGHTS = "model.safetensors"
VOCAB = "vocab.json"
CONFIG = "config.json"
#: Floating dtypes a model's tables may have (``model.dtype``).
TABLE_DTYPES = ("float32", "float64")
SELF_EMBEDDINGS = ("zero", "mean")

Check = Callable[[Any], str | None]  # None when the value is valid, else the problem


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def integer(low: int) -> Check:
    return lambda v: None if _is_int(v) and v >= low else f"expected an integer >= {low}, got {v!r}"


def number(low: float, high: float) -> Check:
    return lambda v: (None if _is_number(v) and low <= v <= high
                      else f"expected a number in [{low:g}, {high:g}], got {v!r}")


def one_of(*choices: Any) -> Check:
    return lambda v: None if v in choices else f"expected one of {list(choices)}, got {v!r}"


def of_type(kind: type, name: str) -> Check:
    return lambda v: None if isinstance(v, kind) else f"expected {name}, got {type(v).__name__}"


def optional(check: Check) -> Check:
    return lambda v: None if v is None else check(v)


def string_list(v: Any) -> str | None:
    if not isinstance(v, list) or not v or not all(isinstance(s, str) for s in v):
        return "expected a non-empty list of strings"
    return None if len(set(v)) == len(v) else "names repeat"


def shape_map(v: Any) -> str | None:
    ok = isinstance(v, dict) and all(
        isinstance(s, list) and all(_is_int(n) and n >= 0 for n in s) for s in v.values())
    return None if ok else "expected an object of tensor names to lists of sizes"


def string_map(v: Any) -> str | None:
    ok = isinstance(v, dict) and all(isinstance(s, str) for s in v.values())
    return None if ok else "expected an object of names to version strings"


_HEX = re.compile(r"[0-9a-f]{64}")


def digest(v: Any) -> str | None:
    return None if isinstance(v, str) and _HEX.fullmatch(v) else "expected a sha256 hex digest"


def file_digests(v: Any) -> str | None:
    if not isinstance(v, dict):
        return "expected an object of file names to sha256 digests"
    missing = [name for name in (WEIGHTS, VOCAB) if name not in v]
    if missing:
        return f"digests of {missing} are missing (integrity checks cannot be skipped)"
    return next((f"{name}: {p}" for name, d in v.items() if (p := digest(d))), None)


def linear_digests(v: Any) -> str | None:
    """The digests of a combined model's linear part (``linear.safetensors``, ``linear.json``)."""
    if not isinstance(v, dict):
        return "expected an object of file names to sha256 digests"
    missing = [name for name in ("linear.safetensors", "linear.json") if name not in v]
    if missing:
        return f"digests of {missing} are missing (integrity checks cannot be skipped)"
    return next((f"{name}: {p}" for name, d in v.items() if (p := digest(d))), None)


_OBJECT = of_type(dict, "an object")
_STRING = of_type(str, "a string")
_BOOL = of_type(bool, "true or false")

#: field path -> (required, check). Objects are checked before their fields.
SCHEMA: dict[str, tuple[bool, Check]] = {
    "format": (True, one_of(FORMAT)),
    "format_version": (True, one_of(FORMAT_VERSION)),
    "model": (True, _OBJECT),
    "model.name": (True, one_of(*INDUCTIVE_MODELS)),
    "model.hidden": (True, integer(1)),
    "model.num_classes": (True, integer(1)),
    "model.layer_options": (True, _OBJECT),
    "model.dtype": (True, one_of(*TABLE_DTYPES)),
    "labels": (True, _OBJECT),
    "labels.names": (True, string_list),
    "labels.multi_label": (True, _BOOL),
    "labels.threshold": (False, optional(number(0.0, 1.0))),
    "labels.separator": (False, optional(_STRING)),
    "tokenizer": (True, _OBJECT),
    "tokenizer.name": (True, _STRING),
    "inductive": (True, _OBJECT),
    "inductive.self_embedding": (True, one_of(*SELF_EMBEDDINGS)),
    "features": (True, _OBJECT),
    "features.kind": (True, _STRING),
    "shapes": (True, shape_map),
    "num_words": (True, integer(1)),
    "versions": (True, string_map),
    "sha256": (True, file_digests),
    "config_sha256": (True, digest),
    "combined": (False, _OBJECT),
    "combined.weight": (True, number(0.0, 1.0)),  # required inside a combined entry
    "combined.sha256": (True, linear_digests),
}


def _lookup(config: dict[str, Any], field: str) -> tuple[bool, Any]:
    value: Any = config
    for key in field.split("."):
        if not isinstance(value, dict) or key not in value:
            return False, None
        value = value[key]
    return True, value


def _parent_present(config: dict[str, Any], field: str) -> bool:
    parent = field.rpartition(".")[0]
    return not parent or _lookup(config, parent)[0]


def validate_config(config: Any, cfg_path: Path) -> None:
    """Raise :class:`ModelLoadError` (``cfg_path: FIELD: problem``) on the first field that
    breaks :data:`SCHEMA`; a field inside an absent optional object is not required."""
    if not isinstance(config, dict):
        raise ModelLoadError(f"{cfg_path}: expected a JSON object")
    for field, (required, check) in SCHEMA.items():
        present, value = _lookup(config, field)
        if not present:
            if required and _parent_present(config, field):
                raise ModelLoadError(f"{cfg_path}: {field}: missing")
            continue
        problem = check(value)
        if problem:
            raise ModelLoadError(f"{cfg_path}: {field}: {problem}")
    names, classes = config["labels"]["names"], config["model"]["num_classes"]
    if len(names) != classes:
        raise ModelLoadError(f"{cfg_path}: labels.names: {len(names)} names for "
                             f"model.num_classes {classes}")

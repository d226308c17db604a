"""The schema of a saved model's ``config.json``, checked field by field on every load.

Every field a loader reads is described here once: its type, its range, whether it must be
present. A model directory whose configuration breaks the schema is refused with one line,
``<dir>/config.json: FIELD: problem``, before any tensor is read; so is one without its
integrity digests (``sha256`` of the weights and vocabulary, ``config_sha256`` of the
configuration itself), which :mod:`gfbgcn.text.predict.saved` writes on every save.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gfbgcn.core.errors import ModelLoadError
from gfbgcn.core.field_checks import (
    Schema,
    file_digests,
    finite,
    is_whole,
    of_type,
    one_of,
    optional,
    schema_problem,
    sha256_hex,
    whole,
)
from gfbgcn.text.train.models import INDUCTIVE_MODELS

FORMAT = "gfbgcn-text-model"
#: 2: built-in tokenizers recorded by their names (``textgcn``, ``whitespace``), not their
#: module paths.  Another version is refused, not converted.
FORMAT_VERSION = 2
WEIGHTS = "model.safetensors"
VOCAB = "vocab.json"
CONFIG = "config.json"
#: Floating dtypes a model's tables may have (``model.dtype``).
TABLE_DTYPES = ("float32", "float64")
SELF_EMBEDDINGS = ("zero", "mean")


def string_list(v: Any) -> str | None:
    if not isinstance(v, list) or not v or not all(isinstance(s, str) for s in v):
        return "expected a non-empty list of strings"
    return None if len(set(v)) == len(v) else "names repeat"


def shape_map(v: Any) -> str | None:
    ok = isinstance(v, dict) and all(
        isinstance(s, list) and all(is_whole(n) and n >= 0 for n in s) for s in v.values())
    return None if ok else "expected an object of tensor names to lists of sizes"


def string_map(v: Any) -> str | None:
    ok = isinstance(v, dict) and all(isinstance(s, str) for s in v.values())
    return None if ok else "expected an object of names to version strings"


_OBJECT = of_type(dict, "an object")
_STRING = of_type(str, "a string")
_BOOL = of_type(bool, "true or false")

#: field path -> check. Objects are checked before their fields; the fields of an absent
#: optional object are not required.
SCHEMA: Schema = {
    "model": _OBJECT,
    "model.name": one_of(*INDUCTIVE_MODELS),
    "model.hidden": whole(1),
    "model.num_classes": whole(1),
    "model.layer_options": _OBJECT,
    "model.dtype": one_of(*TABLE_DTYPES),
    "labels": _OBJECT,
    "labels.names": string_list,
    "labels.multi_label": _BOOL,
    "labels.threshold": optional(finite(0.0, 1.0)),
    "labels.separator": optional(_STRING),
    "tokenizer": _OBJECT,
    "tokenizer.name": _STRING,
    "inductive": _OBJECT,
    "inductive.self_embedding": one_of(*SELF_EMBEDDINGS),
    "features": _OBJECT,
    "features.kind": _STRING,
    "shapes": shape_map,
    "num_words": whole(1),
    "versions": string_map,
    "sha256": file_digests(WEIGHTS, VOCAB),
    "config_sha256": sha256_hex,
    "combined": optional(_OBJECT, null=False),
    # the sentence encoder (gfbgcn.text.predict.saved_encoder checks its fields on load)
    "encoder": optional(_OBJECT, null=False),
    "combined.weight": finite(0.0, 1.0),  # required inside a combined entry
    "combined.sha256": file_digests("linear.safetensors", "linear.json"),
    # the classifier's parameters and classes (gfbgcn.text.estimator.persist)
    "estimator": optional(_OBJECT, null=False),
    "estimator.params": _OBJECT,
    "estimator.classes": of_type(list, "a list"),
    # a multi-label model's form of y (gfbgcn.text.estimator.targets checks its fields)
    "estimator.targets": optional(_OBJECT, null=False),
}


def validate_config(config: Any, cfg_path: Path) -> None:
    """Raise :class:`ModelLoadError` (``cfg_path: FIELD: problem``) on the first field that
    breaks :data:`SCHEMA`, after the format and its version (another version is refused
    whole: no field of it is read)."""
    if not isinstance(config, dict) or config.get("format") != FORMAT:
        raise ModelLoadError(f"{cfg_path}: not a gfbgcn text model configuration")
    version = config.get("format_version")
    if version != FORMAT_VERSION:
        raise ModelLoadError(
            f"{cfg_path}: model format version {version!r}, this gfbgcn reads version "
            f"{FORMAT_VERSION}; use the gfbgcn version that saved it, or retrain"
        )
    problem = schema_problem(config, SCHEMA)
    if problem:
        raise ModelLoadError(f"{cfg_path}: {problem[0]}: {problem[1]}")
    names, classes = config["labels"]["names"], config["model"]["num_classes"]
    if len(names) != classes:
        raise ModelLoadError(f"{cfg_path}: labels.names: {len(names)} names for "
                             f"model.num_classes {classes}")

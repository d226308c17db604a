"""A fitted :class:`gfbgcn.TextGCNClassifier` in a model directory, and its settings read back.

The directory is the one ``gfbgcn train --save`` writes (:mod:`gfbgcn.text.predict.saved`:
safetensors weights, vocabulary, a checksummed ``config.json``), which ``gfbgcn predict`` and
:func:`gfbgcn.load` read.  The classifier adds to ``config.json`` an ``estimator`` entry (its
parameters as given and ``classes_`` in their own type) and, unless told not to, the
transductive outputs of the documents it was fitted on
(:mod:`gfbgcn.text.estimator.transductive`).  A model directory without the entry (saved by an
older version) loads too: the parameters are then read from its training and graph settings.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from gfbgcn.text.tokenize.registry import (
    UnicodeTokenizer,
    make_tokenizer,
    tokenizer_from_name,
)

#: The ``config.json`` entry written by the classifier.
ESTIMATOR_ENTRY = "estimator"
_TRAIN_KEYS = ("model", "hidden", "dropout", "lr", "weight_decay", "epochs", "patience",
               "val_ratio", "batch_size", "fanout", "row_budget", "features")
_GRAPH_KEYS = ("window", "min_freq", "stop_words", "cooccurrence")


def _json_value(value: Any) -> Any:
    """``value`` as JSON holds it: NumPy scalars as Python ones (``random_state=np.int64(1)``
    is recorded as 1), anything else JSON has no form for (a callable tokenizer, a
    ``RandomState``) as ``None``."""
    if isinstance(value, (str, bool, type(None))):
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    return None


def json_params(params: dict[str, Any]) -> dict[str, Any]:
    """The parameters JSON can hold (a callable tokenizer is recorded as ``None``; it is
    passed again to :meth:`~gfbgcn.TextGCNClassifier.load`)."""
    return {k: _json_value(v) for k, v in params.items()}


def estimator_entry(params: dict[str, Any], classes: list[Any]) -> dict[str, Any]:
    """The ``estimator`` entry of ``config.json``."""
    return {"params": json_params(params), "classes": list(classes)}


def tokenizer_params(key: str | None) -> dict[str, Any]:
    """The tokenizer parameters that rebuild the tokenizer a graph records (its cache key);
    empty for a custom tokenizer."""
    tokenizer = tokenizer_from_name(key) if key else None
    if isinstance(tokenizer, UnicodeTokenizer):
        return {"tokenizer": "unicode", "no_numbers": not tokenizer.numbers,
                "cjk_split": tokenizer.cjk}
    for name in ("textgcn", "whitespace"):
        if tokenizer is not None and tokenizer is make_tokenizer(name):
            return {"tokenizer": name}
    return {}


def params_from_config(config: dict[str, Any]) -> dict[str, Any]:
    """The classifier parameters of a model directory's ``config.json``."""
    entry = config.get(ESTIMATOR_ENTRY)
    if isinstance(entry, dict) and isinstance(entry.get("params"), dict):
        return dict(entry["params"])
    train, graph = config.get("train") or {}, config.get("graph") or {}
    params = {k: train[k] for k in _TRAIN_KEYS if k in train}
    options = train.get("layer_options") or {}
    if "seed" in train:
        params["random_state"] = train["seed"]
    params["fast_genvec"] = options.get("exact", True) is False
    if train.get("train_lambda") is False:
        params["fixed_lambda"] = options.get("lambda_init")
    params.update({k: graph[k] for k in _GRAPH_KEYS if k in graph})
    params.update(tokenizer_params(graph.get("tokenizer")))
    return params


def classes_from_config(config: dict[str, Any]) -> list[Any]:
    """``classes_`` of a model directory: as fitted, else its label names."""
    entry = config.get(ESTIMATOR_ENTRY)
    if isinstance(entry, dict) and isinstance(entry.get("classes"), list):
        return list(entry["classes"])
    return list(config["labels"]["names"])

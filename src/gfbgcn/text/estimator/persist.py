"""A fitted :class:`gfbgcn.TextGCNClassifier` in a model directory, and its settings read back.

The directory is the one ``gfbgcn train --save`` writes (:mod:`gfbgcn.text.predict.saved`:
safetensors weights, vocabulary, a checksummed ``config.json``), which ``gfbgcn predict`` and
:func:`gfbgcn.load` read.  The classifier adds to ``config.json`` an ``estimator`` entry (its
parameters as given, ``classes_`` in their own type and, multi-label, the form of ``y`` that
``predict`` gives back: :mod:`gfbgcn.text.estimator.targets`) and, unless told not to, the
transductive outputs of the documents it was fitted on
(:mod:`gfbgcn.text.estimator.transductive`).  The entry's form is checked with the rest of
``config.json`` (:mod:`gfbgcn.text.predict.model_schema`).
"""

from __future__ import annotations

import numbers
from pathlib import Path
from typing import Any

import numpy as np

from gfbgcn.core.errors import ModelLoadError
from gfbgcn.text.estimator.targets import MultiLabelTargets

#: The ``config.json`` entry written by the classifier.
ESTIMATOR_ENTRY = "estimator"


def _json_value(value: Any) -> Any:
    """``value`` as JSON holds it: NumPy scalars as Python ones (``random_state=np.int64(1)``
    is recorded as 1), a dict of numbers by string keys (``class_weight``: its keys are
    matched as strings anyway), anything else JSON has no form for (a callable tokenizer, a
    ``RandomState``) as ``None``."""
    if isinstance(value, (str, bool, type(None))):
        return value
    if isinstance(value, dict):
        values = {str(k): _json_value(v) for k, v in value.items()}
        return values if all(isinstance(v, (int, float)) for v in values.values()) else None
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


def estimator_entry(params: dict[str, Any], classes: list[Any],
                    targets: dict[str, Any] | None = None) -> dict[str, Any]:
    """The ``estimator`` entry of ``config.json`` (``targets``: a multi-label model's form of
    ``y``, :meth:`~gfbgcn.text.estimator.targets.MultiLabelTargets.record`)."""
    return {"params": json_params(params), "classes": list(classes),
            **({"targets": targets} if targets is not None else {})}


def targets_from_config(config: dict[str, Any], classes: list[Any], path: str | Path = ""
                        ) -> MultiLabelTargets | None:
    """The form of ``y`` a multi-label model was fitted with (None: not recorded, single-label
    or saved by ``gfbgcn train``: ``predict`` then gives the ``[n, L]`` 0/1 matrix)."""
    record = config[ESTIMATOR_ENTRY].get("targets")
    if record is None:
        return None
    return MultiLabelTargets.from_record(
        record, classes, f"{Path(path) / 'config.json'}: {ESTIMATOR_ENTRY}.targets")


def params_from_config(config: dict[str, Any]) -> dict[str, Any]:
    """The classifier parameters of a model directory's checked ``config.json``."""
    return dict(config[ESTIMATOR_ENTRY]["params"])


def classes_from_config(config: dict[str, Any], label_names: list[str],
                        path: str | Path = "") -> list[Any]:
    """``classes_`` of a model directory's checked ``config.json``, as fitted: each one a label
    of the saved model (``label_names``), each once; a :class:`ModelLoadError` naming the
    file and field otherwise (an edited or mismatched configuration)."""
    classes = list(config[ESTIMATOR_ENTRY]["classes"])
    where = f"{Path(path) / 'config.json'}: {ESTIMATOR_ENTRY}.classes"
    missing = [c for c in classes if str(c) not in label_names]
    if missing:
        raise ModelLoadError(f"{where}: {missing[0]!r:.40} is not a label of the model "
                             f"({len(label_names)} labels)")
    if len({str(c) for c in classes}) != len(classes) or len(classes) != len(label_names):
        raise ModelLoadError(f"{where}: {len(classes)} classes for the model's "
                             f"{len(label_names)} labels, each once")
    return classes

"""The combined predictor: a graph model's and the linear baseline's class probabilities
interpolated, ``p = w p_graph + (1 - w) p_linear``, with ``w`` chosen on the validation
documents (as BertGCN interpolates its GCN and BERT heads; the grid and the rule:
:mod:`gfbgcn.text.mixture`).  Both parts classify new text inductively, so the
combination is saved and loaded like a graph model: the model directory of
:mod:`gfbgcn.text.predict.saved` plus ``linear.safetensors`` (IDF, coefficients, intercept) and
``linear.json`` (n-gram vocabularies, labels, the classifier's kind and regularisation, see
:mod:`gfbgcn.text.linear.baseline`); ``config.json`` gets a ``combined`` entry with the weight
and the two files' sha256.  No pickle anywhere.

The weight is chosen on the validation documents' probabilities of the linear model fitted
*without* them (:meth:`~gfbgcn.text.linear.baseline.BaselineResult.val_proba`); the refitted
linear model (training and validation documents) is the one combined for test and prediction.
A weight of 0 is the linear baseline alone: that is how ``--auto`` saves and serves the
baseline when it wins.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from gfbgcn.core.io import atomic_write, atomic_write_text, read_json, sha256_file
from gfbgcn.core.paths.inputs import is_regular_file
from gfbgcn.text.linear.baseline import OLD_FORMAT, LinearTextModel
from gfbgcn.text.mixture import (  # noqa: F401  (choose_weight, WEIGHT_GRID: re-exported)
    WEIGHT_GRID,
    choose_weight,
    mix,
)
from gfbgcn.text.predict.inductive import (
    InductiveTextGCN,
    NoKnownWordsWarning,
    Predictions,
)

LINEAR_WEIGHTS = "linear.safetensors"
LINEAR_META = "linear.json"


@dataclass
class CombinedPredictor:
    """A saved graph model and a linear model, mixed with ``weight`` (on the graph part)."""

    graph: InductiveTextGCN
    linear: LinearTextModel
    weight: float

    def __post_init__(self) -> None:
        if self.graph.label_names != self.linear.label_names:
            raise ValueError("the graph and the linear model have different label names")
        if self.graph.multi_label:
            raise ValueError("the combined predictor is single-label only")

    def __repr__(self) -> str:
        # a summary: the linear model's fields hold its vocabulary and coefficients
        return (f"CombinedPredictor(graph={self.graph!r}, linear={self.linear.description} "
                f"({self.linear.idf.size} features), weight={self.weight:g})")

    @property
    def label_names(self) -> list[str]:
        return self.graph.label_names

    @property
    def multi_label(self) -> bool:
        return False

    @property
    def tokenizer_name(self) -> str:
        return self.graph.tokenizer_name

    def predict_proba(self, texts: Sequence[str] | str, batch_size: int = 4096) -> np.ndarray:
        return self.predict(texts, batch_size).probabilities

    def predict(self, texts: Sequence[str] | str, batch_size: int = 4096) -> Predictions:
        if isinstance(texts, str):
            texts = [texts]
        texts = list(texts)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", NoKnownWordsWarning)
            part = self.graph.predict(texts, batch_size)
        _warn_graph_part_silent(caught, part.no_known_words, self.weight)
        probs = mix(part.probabilities, self.linear.predict_proba(texts), self.weight)
        names = self.label_names
        labels = [names[j] for j in probs.argmax(axis=1)] if len(probs) else []
        return Predictions(labels=labels, probabilities=probs, label_names=list(names),
                           no_known_words=part.no_known_words)


def _warn_graph_part_silent(caught: list[warnings.WarningMessage], empty: np.ndarray,
                           weight: float) -> None:
    """Re-issue the graph part's warnings; for documents without a known word, say that its
    share is only the label frequencies, so the linear part decides them."""
    for w in caught:
        if not issubclass(w.category, NoKnownWordsWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    if empty.any() and weight > 0:  # weight 0: the linear baseline alone, nothing to say
        first = int(np.flatnonzero(empty)[0])
        warnings.warn(
            f"{int(empty.sum())} of {len(empty)} document(s) contain no word of the graph "
            f"model's vocabulary (e.g. index {first}): the graph part ({weight:.2f} of the "
            "mix) gives them the training label frequencies, so the linear part answered",
            NoKnownWordsWarning, stacklevel=3)


# ---------------------------------------------------------------------------------------------
# Saving and loading (called by gfbgcn.text.predict.saved)


def write_linear(path: str | Path, linear: LinearTextModel, weight: float) -> dict[str, Any]:
    """Write the linear part into model directory ``path``; returns the ``combined`` entry of
    ``config.json`` (written afterwards by :func:`gfbgcn.text.predict.saved.save_model`)."""
    from safetensors.numpy import save_file

    out = Path(path)
    out.mkdir(parents=True, exist_ok=True)
    arrays, meta = linear.to_tensors()
    # each array in its own dtype: float64 coefficients, float32 and integer smoothing arrays
    arrays = {k: np.ascontiguousarray(v) for k, v in arrays.items()}
    atomic_write(out / LINEAR_WEIGHTS, lambda tmp: save_file(arrays, str(tmp)))
    atomic_write_text(out / LINEAR_META, json.dumps(meta, ensure_ascii=False))
    return {"weight": float(weight), "linear_C": linear.C, "linear": linear.description,
            "sha256": {name: sha256_file(out / name) for name in (LINEAR_WEIGHTS, LINEAR_META)}}


def load_combined(path: Path, entry: dict[str, Any], graph: InductiveTextGCN,
                  error: type[Exception], encoder_dim: int = 0) -> CombinedPredictor:
    """The combined predictor of a model directory whose ``config.json`` has ``entry`` (its
    fields checked by the schema, :mod:`gfbgcn.text.predict.model_schema`); problems raise
    ``error`` (the loader's one-line error type) naming the file.  ``encoder_dim``: the width
    of the directory's encoder (0: none), the columns a linear part that uses it has beside
    its n-grams (its embedding function is attached afterwards)."""
    from safetensors import SafetensorError
    from safetensors.numpy import load_file

    for name in (LINEAR_WEIGHTS, LINEAR_META):
        file = path / name
        if not is_regular_file(file, error=error):
            raise error(f"{path}: {name} is missing (incomplete combined model directory)")
        if sha256_file(file) != entry["sha256"].get(name):
            raise error(f"{file}: checksum mismatch, the file is corrupt or was modified")
    try:
        arrays = load_file(str(path / LINEAR_WEIGHTS))
    except (SafetensorError, OSError, ValueError) as err:
        raise error(f"{path / LINEAR_WEIGHTS}: unreadable linear model ({err})") from err
    try:
        meta = read_json(path / LINEAR_META)
    except (OSError, ValueError) as err:
        raise error(f"{path / LINEAR_META}: unreadable linear model ({err})") from err
    problem = _linear_meta_problem(meta)
    if problem:
        raise error(f"{path / LINEAR_META}: {problem}")
    problem = _linear_arrays_problem(arrays)
    if problem:
        raise error(f"{path / LINEAR_WEIGHTS}: {problem}")
    try:
        linear = LinearTextModel.from_tensors(arrays, meta)
    except (ValueError, KeyError, TypeError) as err:
        raise error(f"{path / LINEAR_META}: unreadable linear model ({err})") from err
    if linear.uses_encoder and not encoder_dim:
        raise error(f"{path / LINEAR_META}: the linear part uses an encoder, but the model "
                    "records none")
    v, c = len(linear.idf), len(linear.label_names)
    width = v + (encoder_dim if linear.uses_encoder else 0)
    if linear.coef.shape != (c, width) or linear.intercept.shape != (c,):
        raise error(f"{path}: linear model shapes do not match its features ({width}) and "
                    f"classes ({c})")
    try:
        return CombinedPredictor(graph, linear, float(entry["weight"]))
    except (ValueError, KeyError) as err:
        raise error(f"{path}: {err}") from err


def _strings(value: Any, unique: bool) -> bool:
    ok = isinstance(value, list) and all(isinstance(s, str) for s in value)
    return ok and (not unique or len(set(value)) == len(value))


def _linear_meta_problem(meta: Any) -> str | None:
    """What a re-signed ``linear.json`` may get wrong, field by field (``None``: nothing)."""
    if not isinstance(meta, dict):
        return "expected a JSON object"
    checks = (("vocab", _strings(meta.get("vocab"), True),
               "expected a list of distinct strings (a word may not repeat)"),
              ("label_names", _strings(meta.get("label_names"), True),
               "expected a list of distinct strings"),
              ("tokenizer", isinstance(meta.get("tokenizer"), str), "expected a string"))
    for field, ok, problem in checks:
        if not ok:
            return f"{field}: {problem}"
    c = meta.get("C")  # 0: not regularised through C (a fine-tuned encoder's head)
    if isinstance(c, bool) or not isinstance(c, (int, float)) or not np.isfinite(c) or c < 0:
        return f"C: expected a finite number >= 0, got {c!r}"
    if meta.get("features") is None and meta.get("encoder") is None:
        return OLD_FORMAT
    return None


def _linear_arrays_problem(arrays: dict[str, np.ndarray]) -> str | None:
    """The linear part's arrays present, floating and finite (``None``: all are)."""
    for name in ("coef", "idf", "intercept"):
        array = arrays.get(name)
        if array is None:
            return f"tensor {name!r} missing"
        if array.dtype.kind != "f":
            return f"tensor {name!r} has dtype {array.dtype}, expected a floating dtype"
        if not np.isfinite(array).all():
            return f"tensor {name!r} holds non-finite values (NaN or infinity)"
    return None

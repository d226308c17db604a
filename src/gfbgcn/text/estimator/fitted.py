"""A fitted classifier's parts that outlive training: its inductive predictor, and its model
directory (written and read back) -- :mod:`gfbgcn.text.estimator.persist` says what is in it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from gfbgcn.core.errors import ModelLoadError, UserError
from gfbgcn.text.estimator.outcome import chosen_combination
from gfbgcn.text.estimator.persist import ESTIMATOR_ENTRY
from gfbgcn.text.estimator.settings import check_savable
from gfbgcn.text.estimator.transductive import Transductive
from gfbgcn.text.graph.text_graph import TextGraph
from gfbgcn.text.predict.combined import CombinedPredictor, write_linear
from gfbgcn.text.predict.inductive import InductiveTextGCN
from gfbgcn.text.predict.saved import load_model_and_config, save_model
from gfbgcn.text.predict.saved_encoder import ENCODER_ENTRY, bundled_encoder, encoder_record
from gfbgcn.text.search.auto import AutoResult
from gfbgcn.text.tokenize.clean import Tokenizer
from gfbgcn.text.train.config import TrainResult
from gfbgcn.text.train.models import INDUCTIVE_MODELS

#: The ``config.json`` entry of the transductive outputs.
TRANSDUCTIVE_ENTRY = "transductive"


def _combination(auto: AutoResult | None) -> tuple[Any, float] | None:
    """``(linear model, graph weight)`` when ``auto`` chose a combined predictor."""
    if auto is None or auto.chosen.predictor == "graph":
        return None
    baseline, weight = chosen_combination(auto)
    return baseline.model, float(weight)


def inductive_predictor(result: TrainResult, graph: TextGraph, auto: AutoResult | None,
                        tokenizer: Tokenizer | None,
                        combination: tuple[Any, float] | None = None,
                        prior: np.ndarray | None = None
                        ) -> InductiveTextGCN | CombinedPredictor:
    """The predictor of new documents of a fitted run, combined with a linear model when
    ``auto`` chose that or the run gives one (``combination``: ``(linear model, graph
    weight)``, a fine-tuned encoder's head); ``prior``: the graph part's answer for a document
    without a known word (None: the training documents' label frequencies); a
    :class:`UserError` for the models that have none (sgc, gin)."""
    model = result.config.model
    if model not in INDUCTIVE_MODELS:
        raise UserError(f"{model} classifies only the documents given to fit (X or "
                        f"X_unlabeled): new documents need a two-layer model "
                        f"({', '.join(INDUCTIVE_MODELS)})")
    part = InductiveTextGCN.from_trained(result.model, graph, model, tokenizer=tokenizer,
                                         prior=prior)
    combination = combination or _combination(auto)
    if combination is None:
        return part
    return CombinedPredictor(part, *combination)


def save_fitted(path: str | Path, predictor: InductiveTextGCN | CombinedPredictor,
                settings: dict[str, Any], entry: dict[str, Any],
                outputs: Transductive | None) -> Path:
    """Write a fitted classifier to model directory ``path`` (a whole, see
    :func:`gfbgcn.text.predict.saved.save_model`): its inductive ``predictor`` (the graph
    model, and the linear part of a combined one), the recorded training ``settings``
    (:func:`gfbgcn.text.predict.saved.trained_settings`), the ``estimator`` entry and the
    transductive ``outputs`` if given.  The tokenizer is not written: a custom one is passed
    again to :func:`gfbgcn.load`."""
    check_savable(predictor.graph.model_name if isinstance(predictor, CombinedPredictor)
                  else predictor.model_name)
    graph_part = predictor.graph if isinstance(predictor, CombinedPredictor) else predictor
    combination = None
    if isinstance(predictor, CombinedPredictor):
        combination = (predictor.linear, predictor.weight)

    def write_parts(staging: Path) -> dict[str, Any]:  # inside the directory being built
        parts: dict[str, Any] = {}
        bundled = bundled_encoder(predictor, staging)
        if bundled is not None:
            parts[ENCODER_ENTRY] = bundled
        if combination is not None:
            parts["combined"] = write_linear(staging, *combination)
        if outputs is not None:
            parts[TRANSDUCTIVE_ENTRY] = outputs.write(staging)
        return parts

    record = encoder_record(predictor)  # the linear part's too
    extra = {ESTIMATOR_ENTRY: entry, **({ENCODER_ENTRY: record} if record else {})}
    return save_model(path, graph_part, **settings, extra=extra, extra_writer=write_parts)


def load_fitted(path: str | Path, device: str | None, tokenizer: Tokenizer | None,
                encoder: str | None = None
                ) -> tuple[InductiveTextGCN | CombinedPredictor, dict[str, Any], Transductive]:
    """``(predictor, config.json, transductive outputs)`` of a model directory; outputs with no
    rows when it has none (saved by ``gfbgcn train`` or with ``transductive=False``);
    ``encoder``: where its sentence encoder is now (None: where it was)."""
    predictor, config = load_model_and_config(path, tokenizer=tokenizer, device=device,
                                              encoder=encoder)
    if ESTIMATOR_ENTRY not in config:
        raise ModelLoadError(f"{path}: saved without the classifier's parameters (by "
                             "save_model or save_trained); load it with gfbgcn.load(path)")
    entry = config.get(TRANSDUCTIVE_ENTRY)
    classes = len(predictor.label_names)
    if isinstance(entry, dict):
        return predictor, config, Transductive.read(Path(path), entry, classes)
    return predictor, config, Transductive.empty(classes)

"""What a fitted :class:`~gfbgcn.TextGCNClassifier` reports: the metrics beside the graph
model's (the linear baseline, the ``auto`` search and a chosen combination, a multi-label
run's scores per label), the run directory ``gfbgcn train --out`` writes
(:func:`gfbgcn.text.train.run_files.write_run`) and its figures."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from sklearn.utils.validation import check_is_fitted

from gfbgcn.core.errors import UserError
from gfbgcn.core.figures.run import draw_run_figures
from gfbgcn.core.metrics import classification_metrics, per_class_scores, test_metrics
from gfbgcn.text.corpus.corpus import Corpus
from gfbgcn.text.corpus.labels import multi_hot, split_labels
from gfbgcn.text.estimator.transductive import Transductive
from gfbgcn.text.linear.baseline import BaselineResult, graph_split
from gfbgcn.text.predict.combined import mix
from gfbgcn.text.search.auto import AutoResult, chosen_summary
from gfbgcn.text.train.config import TrainResult
from gfbgcn.text.train.run_files import figure_inputs, run_title, write_run

BASELINE_METHOD = ("word 1-2-gram + char_wb 2-5-gram TF-IDF (sublinear tf, smoothed idf, L2 per "
                   "block) + a linear classifier (logistic regression, linear SVM, SGD modified "
                   "Huber or complement naive Bayes) and its regularisation chosen on validation, "
                   "refitted on the whole training split, temperature-calibrated probabilities "
                   "(scikit-learn)")
MULTI_LABEL_METHOD = ("word 1-2-gram + char_wb 2-5-gram TF-IDF (sublinear tf, smoothed idf, L2 "
                      "per block) + one logistic regression per label, its C and one decision "
                      "threshold chosen on validation by micro F1, refitted on the whole "
                      "training split (scikit-learn)")
ENCODER_HEAD_METHOD = ("a frozen sentence encoder's document embeddings + logistic regression, "
                       "its C chosen on validation, refitted on the whole training split, "
                       "temperature-calibrated probabilities (scikit-learn)")
STACKED_METHOD = ("word 1-2-gram + char_wb 2-5-gram TF-IDF (sublinear tf, smoothed idf, L2 per "
                  "block) with a frozen sentence encoder's document embeddings beside them, in "
                  "one linear SVM, its C and the embeddings' scale chosen on validation, "
                  "refitted on the whole training split, temperature-calibrated probabilities "
                  "(scikit-learn)")


def linear_method(b: BaselineResult) -> str:
    """How a linear model was made, in words (``metrics.json``)."""
    if b.threshold is not None:
        return MULTI_LABEL_METHOD
    if not b.model.uses_encoder:
        return BASELINE_METHOD
    return ENCODER_HEAD_METHOD if b.model.ngrams is None else STACKED_METHOD


def baseline_metrics(b: BaselineResult) -> dict[str, Any]:
    """The ``baseline`` object of ``metrics.json``: ``test``/``val`` with the graph model's keys,
    the chosen classifier, its class weighting and the validation grid (multi-label: and the
    decision threshold)."""
    method = linear_method(b)
    return {"test": b.test, "val": b.val, "classifier": b.model.description,
            "kind": b.model.kind, "params": b.model.params, "temperature": b.model.temperature,
            "class_weight": b.class_weight, "val_grid": b.grid, "seconds": b.seconds,
            "method": method,
            **({"threshold": b.threshold} if b.threshold is not None else {})}


def chosen_combination(auto: AutoResult) -> tuple[BaselineResult, float]:
    """``(linear model, graph weight)`` of the combined predictor ``auto`` chose (a linear
    model alone is graph weight 0); a ``ValueError`` when it chose a graph model alone."""
    linear = auto.linear_of(auto.chosen)
    if linear is None or auto.chosen.weight is None:
        raise ValueError(f"the search chose a {auto.chosen.predictor} predictor, not a "
                         "combination with a linear model")
    return linear, auto.chosen.weight


def transductive_outputs(corpus: Corpus, result: TrainResult, auto: AutoResult | None
                         ) -> Transductive:
    """The fitted documents' probabilities (mixed with the linear model's when ``auto`` chose
    the combination), found again by their text."""
    probs = result.probabilities
    if auto is not None and auto.chosen.predictor != "graph":
        baseline, weight = chosen_combination(auto)
        probs = mix(probs, baseline.probabilities, weight)
    return Transductive.of(corpus.texts, probs)


def combined_metrics(auto: AutoResult) -> dict[str, Any]:
    """``test``/``val`` metrics of a chosen combination (the combined predictor's; graph weight
    0 is the baseline alone).  Validation documents are scored with the baseline's held-out
    probabilities, the ones the weight was chosen on."""
    g = auto.graph
    split = graph_split(g, auto.result.config.val_ratio, auto.result.config.seed)
    baseline, weight = chosen_combination(auto)
    p_lin = baseline.probabilities.copy()
    p_lin[baseline.val_idx] = baseline.val_proba()
    pred = mix(auto.result.probabilities, p_lin, weight).argmax(1)
    metrics: dict[str, Any] = {"combined_weight": float(weight)}
    for name, score in (("test", test_metrics), ("val", classification_metrics)):
        idx = split[name]
        metrics[name] = score(g.labels[idx], pred[idx], len(g.label_names))
    return metrics


def _auto_outputs(auto: AutoResult) -> tuple[dict[str, Any], np.ndarray | None]:
    """The ``auto`` search's entries of ``metrics.json`` and the chosen predictor's outputs
    when they are not the graph model's (a combination)."""
    extra: dict[str, Any] = {"auto": chosen_summary(auto)}
    if auto.baseline is not None:
        extra["baseline"] = baseline_metrics(auto.baseline)
    if auto.chosen.predictor == "graph":
        return extra, None
    extra["graph_part"] = {"test": auto.result.test, "val": auto.result.val}
    extra.update(combined_metrics(auto))
    baseline, weight = chosen_combination(auto)
    return extra, mix(auto.result.probabilities, baseline.probabilities, weight)


def test_per_label(clf: Any) -> dict[str, list]:
    """A multi-label fit's scores of each label on the test documents (``metrics.json``'s
    ``test_per_label``: ``labels``, ``precision``, ``recall``, ``f1``, ``support``), at the
    decision threshold chosen on validation."""
    result, graph, names = clf.result_, clf.graph_, [str(c) for c in clf.classes_]
    truth, _ = multi_hot(split_labels(clf.corpus_.labels, clf.label_sep), names)
    test = ~np.asarray(graph.is_train)
    scores = per_class_scores(truth[test], result.probabilities[test] >= result.threshold,
                              len(names))
    return {"labels": names, **{k: v.tolist() for k, v in scores.items()}}


def _fitted_outputs(clf: Any) -> dict[str, Any]:
    """The arguments of :func:`~gfbgcn.text.train.run_files.write_run` (beyond the result and
    the graph) of the fitted classifier ``clf``: its ``baseline_``'s and ``auto_``'s metrics,
    the reported predictor's outputs, a multi-label run's labels and their test scores."""
    auto, baseline = clf.auto_, clf.baseline_
    extra: dict[str, Any] = {}
    probs = None
    files: dict[str, str] = {}
    if auto is not None:
        extra, probs = _auto_outputs(auto)
        baseline = auto.baseline
        files["auto.csv"] = auto.table()
    elif baseline is not None:
        extra["baseline"] = baseline_metrics(baseline)
    if clf.multi_label:
        extra["test_per_label"] = test_per_label(clf)
    return {"label_names": list(clf.classes_) if clf.multi_label else None,
            "extra_metrics": extra or None, "extra_files": files or None,
            "probabilities": probs,
            "baseline": None if baseline is None else baseline.probabilities,
            "baseline_threshold": None if baseline is None else baseline.threshold}


def write_fitted_run(out: str | Path, clf: Any, provenance: dict[str, Any] | None,
                     draw: bool | None = None) -> Path:
    """``gfbgcn train --out``: the run directory of the fitted classifier ``clf`` (its
    ``result_``, ``graph_``, ``baseline_``, ``auto_``, multi-label ``classes_``), with its
    figures where ``draw`` (default: where matplotlib is installed)."""
    return write_run(out, clf.result_, clf.graph_, provenance=provenance, draw=draw,
                     **_fitted_outputs(clf))


def draw_fitted_run(clf: Any, directory: str | Path) -> list[Path]:
    """The figures :func:`write_fitted_run` draws into a run directory, of the fitted
    classifier ``clf``, drawn into ``directory`` (made if missing); the files written.  A
    classifier without its training state (loaded, or unpickled) is a
    :class:`~gfbgcn.core.errors.UserError`."""
    check_is_fitted(clf, "classes_")
    if clf.result_ is None:
        raise UserError("this classifier holds no training state (loaded or unpickled): "
                        "fit it again to draw its run")
    outputs = _fitted_outputs(clf)
    result, graph = clf.result_, clf.graph_
    metrics = {"test": result.test, "best_epoch": result.best_epoch,
               "label_names": outputs["label_names"] or list(graph.label_names),
               **(outputs["extra_metrics"] or {})}
    target = Path(directory)
    target.mkdir(parents=True, exist_ok=True)
    names = draw_run_figures(target, result.history,
                             title=run_title(result.config.model, graph.corpus_name),
                             **figure_inputs(metrics))
    return [target / name for name in names]

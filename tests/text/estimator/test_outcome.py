"""The run directory of a fitted classifier (``gfbgcn.text.estimator.outcome``)."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from gfbgcn import TextGCNClassifier
from gfbgcn.core.errors import UserError
from gfbgcn.text.estimator.outcome import (
    BASELINE_METHOD,
    baseline_metrics,
    chosen_combination,
)
from tests.text.search.test_own_corpus import tiny_corpus

FAST = {"hidden": 8, "epochs": 6, "min_freq": 1, "stop_words": None, "cache": False,
        "model": "gcn"}


def test_write_run_records_the_model_and_the_baseline(tmp_path):
    clf = TextGCNClassifier(**FAST).fit_corpus(tiny_corpus(60))
    out = clf.write_run(tmp_path / "run", provenance={"command": ["test"]})
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["test"] == json.loads(json.dumps(clf.result_.test))
    assert metrics["baseline"]["method"] == BASELINE_METHOD
    assert metrics["baseline"] == json.loads(json.dumps(baseline_metrics(clf.baseline_)))
    header = (out / "predictions.csv").read_text().splitlines()[0]
    assert header.endswith("baseline_predicted")
    assert json.loads((out / "config.json").read_text())["run"] == {"command": ["test"]}


def test_write_run_needs_the_training_state(tmp_path):
    clf = TextGCNClassifier(**FAST).fit_corpus(tiny_corpus(60))
    clf.save(tmp_path / "model")
    loaded = TextGCNClassifier.load(tmp_path / "model")
    with pytest.raises(UserError, match="holds no training state"):
        loaded.write_run(tmp_path / "run")


def test_chosen_combination_needs_a_chosen_combination():
    """The linear model and graph weight of a chosen combination (weight 0: the linear model
    alone), the one the candidate names among the search's linear models; a search that chose
    a graph model alone has none."""
    from gfbgcn.text.search.candidates import AutoResult

    linears = [object(), object()]

    def search(predictor: str, weight: float | None, index: int | None) -> AutoResult:
        chosen = SimpleNamespace(predictor=predictor, weight=weight, linear_index=index)
        return AutoResult(candidates=[], chosen=chosen, result=None, graph=None,  # type: ignore
                          baseline=linears[0], seconds=0.0, linears=linears)

    assert chosen_combination(search("graph+linear", 0.4, 1)) == (linears[1], 0.4)
    assert chosen_combination(search("linear", 0.0, 0)) == (linears[0], 0.0)
    with pytest.raises(ValueError, match="chose a graph predictor, not a combination"):
        chosen_combination(search("graph", None, None))


def _multi_label_corpus():
    corpus = tiny_corpus(60)
    corpus.labels = [label if i % 3 else f"{label}|x" for i, label in enumerate(corpus.labels)]
    return corpus


def test_a_multi_label_run_records_and_draws_each_label_s_test_f1(tmp_path):
    clf = TextGCNClassifier(**FAST, multi_label=True, baseline=False)
    out = clf.fit_corpus(_multi_label_corpus()).write_run(tmp_path / "run")
    metrics = json.loads((out / "metrics.json").read_text())
    per_label = metrics["test_per_label"]
    assert per_label["labels"] == list(clf.classes_) == ["denar", "x", "šport"]
    # the per-label scores are the ones the macro average is the mean of
    assert sum(per_label["f1"]) / 3 == pytest.approx(metrics["test"]["macro_f1"])
    assert sum(per_label["support"]) == sum(
        len(label.split("|")) for label, train in zip(clf.corpus_.labels, clf.corpus_.is_train)
        if not train)
    names = {p.name for p in out.iterdir()}
    assert {"curves.png", "label_f1.png"} <= names and "confusion.png" not in names


def test_draw_run_draws_a_fitted_classifier_s_figures(tmp_path):
    import gfbgcn

    clf = TextGCNClassifier(**FAST).fit_corpus(tiny_corpus(60))
    drawn = gfbgcn.draw_run(clf, tmp_path / "figures")
    assert drawn == [tmp_path / "figures" / "curves.png", tmp_path / "figures" / "confusion.png"]
    out = clf.write_run(tmp_path / "run")  # the same figures as the run directory's
    assert (out / "confusion.png").read_bytes() == drawn[1].read_bytes()
    assert gfbgcn.draw_run(out, tmp_path / "again")[0].read_bytes() == drawn[0].read_bytes()
    with pytest.raises(TypeError, match="say where the figures go"):
        gfbgcn.draw_run(clf)
    clf.save(tmp_path / "model")
    with pytest.raises(UserError, match="no training state"):
        gfbgcn.draw_run(TextGCNClassifier.load(tmp_path / "model"), tmp_path / "x")

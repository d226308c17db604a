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


# ---- test metrics: the labelled test documents only ------------------------------------------


@pytest.mark.parametrize("extra", [{}, {"batch_size": 8, "fanout": 4}])
def test_unlabelled_documents_are_scored_by_no_test_metric(extra, tmp_path):
    """fit(X, y, X_unlabeled=U): U's documents are the graph's test documents but carry no
    label, so nothing is scored (no accuracy against a placeholder class); the run directory
    says so and still lists U's predictions, without a true label."""
    from tests.text.estimator.toyfit import FAST as QUICK
    from tests.text.estimator.toyfit import toy_split

    x, y, unlabeled = toy_split()
    clf = TextGCNClassifier(**QUICK, **extra).fit(x, y, X_unlabeled=unlabeled)
    assert clf.result_.test is None
    out = clf.write_run(tmp_path / "run")
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["test"] is None and metrics["test_documents"] == 0
    assert metrics["test_note"].startswith("no labelled test documents")
    rows = (out / "predictions.csv").read_text().splitlines()
    assert len(rows) == 1 + len(unlabeled)
    docs, labels, predicted = zip(*(r.split(",")[:3] for r in rows[1:]))
    assert [int(d) for d in docs] == list(range(len(x), len(x) + len(unlabeled)))
    assert set(labels) == {""}  # no placeholder class as a true label
    assert list(predicted) == [str(p) for p in clf.predict(unlabeled)]


def test_a_fit_without_test_documents_has_no_test_metrics():
    from tests.text.estimator.toyfit import FAST as QUICK
    from tests.text.estimator.toyfit import toy_split

    x, y, _ = toy_split()
    assert TextGCNClassifier(**QUICK).fit(x, y).result_.test is None  # not accuracy 0.0


def test_a_corpus_with_labelled_test_documents_counts_them(tmp_path):
    corpus = tiny_corpus(60)
    clf = TextGCNClassifier(**FAST).fit_corpus(corpus)
    metrics = json.loads((clf.write_run(tmp_path / "run") / "metrics.json").read_text())
    assert metrics["test_documents"] == int((~corpus.is_train).sum()) > 0
    assert "test_note" not in metrics and metrics["test"]["accuracy"] >= 0


def test_auto_with_unlabelled_documents_scores_no_test_metric(tmp_path):
    """--auto's candidates, its baseline and the chosen combination score no test document
    either when the test documents are X_unlabeled."""
    from tests.text.toydata import topic_documents

    x, y = topic_documents(30)
    clf = TextGCNClassifier(**{**FAST, "auto": True, "budget": 1}).fit(
        x[:20], y[:20], X_unlabeled=x[20:])
    assert clf.auto_.baseline.test is None
    assert all(c.test == {} for c in clf.auto_.candidates)
    metrics = json.loads((clf.write_run(tmp_path / "run") / "metrics.json").read_text())
    assert metrics["test"] is None and metrics["baseline"]["test"] is None
    assert metrics.get("graph_part", {"test": None})["test"] is None


def test_the_command_line_says_there_is_no_test_metric(capsys):
    """What `gfbgcn train` prints of a run without a labelled test document: a line, not an
    accuracy of 0.0."""
    from gfbgcn.cli.train import _print_result
    from gfbgcn.cli.train_auto import NO_TEST_LINE
    from gfbgcn.text.train.config import TrainConfig

    for multi in (False, True):
        result = SimpleNamespace(config=TrainConfig(model="gcn"), test=None, epochs_run=3,
                                 val={"loss": 0.5}, best_epoch=2, threshold=0.5, lam=None,
                                 seconds_per_epoch=0.01, device="cpu", peak_rss_mib=100.0)
        _print_result(result, multi)
        out = capsys.readouterr().out.splitlines()
        assert out[-1] == NO_TEST_LINE and "accuracy 0.0" not in "\n".join(out)


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

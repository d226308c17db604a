"""C. Options that cannot apply are refused (or warned about, where harmless) when the command
line is read, and what a command reports is what its options asked for."""

from __future__ import annotations

import json

import pytest

from gfbgcn import TextGCNClassifier
from gfbgcn.core.errors import OptionError

from .conftest import FAST, documents, write_csv


@pytest.mark.parametrize(("given", "needed"), [
    (["--budget", "2"], "--auto"),
    (["--fanout", "8"], "--batch-size"),
    (["--label-sep", ","], "--multi-label"),
])
def test_an_option_that_cannot_apply_is_refused_before_any_work(cli, corpus, tmp_path,
                                                                monkeypatch, given, needed):
    from gfbgcn.cli import options

    monkeypatch.setattr(options, "load_corpus", lambda *a, **k: pytest.fail("read a corpus"))
    cli("train", "--dataset", corpus, *FAST, *given, "--out", tmp_path / "r"
        ).assert_user_error(f"{given[0]} applies only with {needed}")
    assert not (tmp_path / "r").exists()


def test_the_options_that_apply_are_accepted(cli, corpus):
    result = cli("train", "--dataset", corpus, *FAST, "--batch-size", "4", "--fanout", "3",
                 "--device", "cpu")
    assert result.status == 0, result.err


def test_multi_label_without_any_separator_warns(cli, corpus):
    result = cli("train", "--dataset", corpus, *FAST, "--multi-label")
    assert result.status == 0, result.err
    assert "warning: --multi-label: no label contains the separator '|'" in result.err
    labels = write_csv(corpus.with_name("multi.csv"),
                       [(t, f"{lab}|x" if i % 2 else lab, s)
                        for i, (t, lab, s) in enumerate(documents())])
    result = cli("train", "--dataset", labels, *FAST, "--multi-label")
    assert result.status == 0 and "warning" not in result.err, result.err


def test_auto_reports_the_budget_it_was_given(cli, corpus, tmp_path):
    result = cli("train", "--dataset", corpus, *FAST, "--auto", "--budget", "2",
                 "--out", tmp_path / "r")
    assert result.status == 0, result.err
    assert "2 candidates trained" in result.out and "4 candidates" not in result.out
    assert "try --auto" not in result.out  # it is running under --auto
    metrics = json.loads((tmp_path / "r" / "metrics.json").read_text())
    assert metrics["auto"]["trained"] == 2


def test_auto_honours_no_baseline(cli, corpus, tmp_path, monkeypatch):
    from gfbgcn.text.search import auto as search

    monkeypatch.setattr(search, "baseline_for_graph",
                        lambda *a, **k: pytest.fail("fitted the baseline"))
    result = cli("train", "--dataset", corpus, *FAST, "--auto", "--budget", "2",
                 "--no-baseline", "--out", tmp_path / "r")
    assert result.status == 0, result.err
    assert "graph+linear" not in result.out and "TF-IDF" not in result.out
    assert "2 candidates trained in" in result.out
    metrics = json.loads((tmp_path / "r" / "metrics.json").read_text())
    assert "baseline" not in metrics and metrics["auto"]["predictor"] == "graph"


def test_python_auto_without_baseline(monkeypatch):
    from gfbgcn.text.search import auto as search

    monkeypatch.setattr(search, "baseline_for_graph",
                        lambda *a, **k: pytest.fail("fitted the baseline"))
    texts, labels, _ = zip(*documents())
    clf = TextGCNClassifier(auto=True, budget=2, baseline=False, epochs=2, hidden=8,
                            min_freq=1, cache=False, device="cpu", build_workers=1)
    clf.fit(list(texts), list(labels))
    assert clf.auto_.baseline is None and clf.auto_.trained == 2
    assert {c.predictor for c in clf.auto_.candidates} == {"graph"}
    assert len(clf.predict(["goal team coach"])) == 1


def test_python_seed_beyond_the_range_is_refused():
    texts, labels, _ = zip(*documents())
    with pytest.raises(OptionError, match=r"^random_state must be None, a whole number in "
                                          r"\[0, 4294967295\]"):
        TextGCNClassifier(random_state=2**32, epochs=1, cache=False).fit(list(texts),
                                                                         list(labels))

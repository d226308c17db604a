"""--auto's search mechanics: weak candidates stopped at successive halving's rungs, graph
settings that empty documents flagged, and every choice made on validation only (real data)."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest

from gfbgcn.text.corpus.benchmarks import Corpus
from gfbgcn.text.graph.text_graph import GraphConfig, build_text_graph
from gfbgcn.text.search.auto import RUNGS, Budget, Candidate, GraphSetting, run_auto
from gfbgcn.text.tokenize.registry import UnicodeTokenizer
from gfbgcn.text.train.config import TrainConfig
from gfbgcn.text.train.run import train_text
from tests.text.search.test_own_corpus import tiny_corpus


def test_a_stop_rule_ends_full_batch_training_with_the_best_weights():
    corpus = tiny_corpus(60)
    graph = build_text_graph(corpus, GraphConfig(min_freq=1, stop_words=None),
                             UnicodeTokenizer(), cache=False)
    config = TrainConfig(model="gcn", epochs=50, hidden=8, patience=50)
    full = train_text(graph, config, progress=False)
    stopped = train_text(graph, config, progress=False, stop_rule=lambda h: len(h) == 10)
    assert full.epochs_run == 50 and stopped.epochs_run == 10
    assert stopped.best_epoch <= 10
    # the first 10 epochs are the same run
    assert [h["val_loss"] for h in stopped.history] == [h["val_loss"] for h in full.history[:10]]


def test_auto_stops_a_trailing_candidate_and_records_where(monkeypatch):
    """A candidate that trails at a rung is stopped there; the table says so; the choice is
    still made on validation accuracy."""
    from gfbgcn.text.search import auto as search

    monkeypatch.setattr(search, "prune_margin", lambda n: -1.0)  # every follower trails
    corpus = tiny_corpus(80, noise=0.9)
    auto = run_auto(corpus, UnicodeTokenizer(),
                    TrainConfig(seed=0, epochs=30, hidden=16, patience=30),
                    budget=Budget(candidates=3), cache=False, log=lambda _: None)
    graph = [c for c in auto.candidates if c.predictor == "graph"]
    assert graph[0].stopped_at is None  # the first graph candidate has no incumbent
    assert [c.stopped_at for c in graph[1:]] == [RUNGS[0]] * 2
    assert "stopped_at" in auto.table().splitlines()[0]
    assert auto.table().splitlines()[4].endswith(f",{RUNGS[0]}")  # the second graph candidate's row
    whole = run_auto(corpus, UnicodeTokenizer(),
                     TrainConfig(seed=0, epochs=30, hidden=16, patience=30),
                     budget=Budget(candidates=3), cache=False, log=lambda _: None, prune=False)
    assert all(c.stopped_at is None for c in whole.candidates)
    # the first candidate is the same training either way; the stopped ones are shorter
    assert whole.candidates[1].val_accuracy == auto.candidates[1].val_accuracy
    assert all(whole.result_of(c).epochs_run >= auto.result_of(c).epochs_run
               for c in graph)


def test_auto_flags_settings_that_empty_documents():
    texts = ["not for me", "no it is not", "very good film", "bad bad film"] * 10
    labels = ["neg", "neg", "pos", "neg"] * 10
    corpus = Corpus("phrases", texts, labels, np.arange(40) % 4 != 3)
    with pytest.warns(UserWarning, match=r"stop=english min_freq=5 window=20 leaves 20 of 40 "
                      r"documents without a word \(stop words 'english', which remove words "
                      r"such as not/no/nor, and min_freq 5\)"):
        run_auto(corpus, UnicodeTokenizer(), TrainConfig(seed=0, epochs=3, hidden=8),
                 budget=Budget(candidates=1), cache=False, log=lambda _: None)


def test_a_candidate_names_its_graph_and_the_baseline_has_none():
    setting = GraphSetting("english", 5, 20)
    graph = Candidate(setting, "gfb-max", True, "graph", 0.8, 1.0, features="wordllama")
    assert graph.graph_setting is setting
    assert graph.result_key == (setting, "gfb-max", True, "wordllama")
    baseline = Candidate(None, "linear", False, "linear", 0.7, 1.0, linear="svm C=0.3")
    with pytest.raises(ValueError, match="no graph setting"):
        _ = baseline.graph_setting
    with pytest.raises(ValueError, match="no graph setting"):
        _ = baseline.result_key


def _choices(auto) -> dict:
    """What a search chose and every number it chose by, without its timings and test scores:
    the table (no test columns; ``seconds`` dropped), the chosen row and weight, the baseline's
    classifier, regularisation, temperature and validation grid, each candidate's validation
    metrics."""
    rows = list(csv.DictReader(io.StringIO(auto.table())))
    b = auto.baseline
    return {"table": [{k: v for k, v in r.items() if k != "seconds"} for r in rows],
            "chosen": auto.chosen.row() | {"seconds": ""}, "weight": auto.chosen.weight,
            "baseline": None if b is None else (b.model.kind, b.model.params,
                                                b.model.temperature, b.grid, b.val),
            "val": {key: r.val for key, r in auto.results.items()}}


@pytest.mark.realdata
def test_auto_chooses_the_same_with_the_test_labels_permuted(data_dir):
    """Every choice on validation only: on a small R8 sample, the search with the
    test documents' labels permuted makes every choice the same, with the baseline and its
    combinations and among graph models alone (only the test scores move)."""
    from gfbgcn.text.corpus.benchmarks import load_benchmark

    corpus = load_benchmark("r8", data_dir)
    rng = np.random.default_rng(0)
    idx = np.sort(np.r_[rng.choice(np.flatnonzero(corpus.is_train), 200, replace=False),
                        rng.choice(np.flatnonzero(~corpus.is_train), 60, replace=False)])
    sample = corpus.subset(idx, name="r8-sample")
    test = np.flatnonzero(~sample.is_train)
    permuted = list(sample.labels)
    for i, j in zip(test, rng.permutation(test)):
        permuted[i] = sample.labels[j]
    assert sum(a != b for a, b in zip(permuted, sample.labels)) >= 20

    def search(labels: list[str], baseline: bool):
        return run_auto(Corpus("r8-sample", sample.texts, labels, sample.is_train),
                        UnicodeTokenizer(), TrainConfig(seed=0, epochs=30, hidden=16,
                                                        patience=30, val_ratio=0.2),
                        budget=Budget(candidates=3), cache=False, log=lambda _: None,
                        baseline=baseline)

    for baseline in (True, False):
        first, second = search(list(sample.labels), baseline), search(permuted, baseline)
        assert len(first.candidates) == (1 + 2 * 3 if baseline else 3)
        assert _choices(first) == _choices(second)
        # the permutation reached the test scores: the choices are equal despite them
        assert [c.test for c in first.candidates] != [c.test for c in second.candidates]


def test_the_best_candidate_is_the_earliest_of_equals():
    from gfbgcn.text.search.candidates import best_by_accuracy

    first, second, third = (Candidate(None, "linear", False, "linear", acc, 0.0)
                            for acc in (0.5, 0.7, 0.7))
    assert best_by_accuracy([first, second, third]) is second
    assert best_by_accuracy([third, second]) is third


def test_the_answer_is_the_protected_candidate_under_the_library_rule():
    import numpy as np

    from gfbgcn.text.search.candidates import choose

    def cand(acc: float, loss: float) -> Candidate:
        return Candidate(None, "linear", False, "linear", acc, 0.0, val_log_loss=loss,
                         val_losses=np.full(50, loss) + np.linspace(0, 0.01, 50))

    baseline, better = cand(0.8, 0.50), cand(0.95, 0.10)
    assert choose([baseline, better], protected=0) is baseline
    assert choose([better, baseline], protected=1) is baseline
    assert choose([baseline, better], protected=None) is better  # no linear models: accuracy


def test_the_answer_has_the_lowest_validation_log_loss_under_the_log_loss_rule(monkeypatch):
    import numpy as np

    from gfbgcn.text.search import candidates as module
    from gfbgcn.text.search.candidates import choose
    from gfbgcn.text.search.selection import SelectionRule

    monkeypatch.setattr(module, "RULE", SelectionRule())  # the rule before the third study

    def cand(acc: float, loss: float) -> Candidate:
        return Candidate(None, "linear", False, "linear", acc, 0.0, val_log_loss=loss,
                         val_losses=np.full(50, loss))

    baseline, accurate, calibrated, tie = cand(0.8, 0.50), cand(0.9, 0.45), cand(0.85, 0.40), \
        cand(0.85, 0.40)
    assert choose([baseline, accurate, calibrated, tie], protected=0) is calibrated
    assert choose([baseline, cand(0.9, 0.50)], protected=0) is baseline  # a tie: earliest
    # the protected candidate need not come first; a tie with it keeps it
    assert choose([cand(0.9, 0.40), baseline, cand(0.7, 0.40)], protected=1).val_accuracy == 0.9
    # without linear models (no combinations): the highest accuracy, as the study did not
    # cover it
    assert choose([baseline, accurate, calibrated], protected=None) is accurate
    with pytest.raises(ValueError, match="per-document validation losses"):
        choose([Candidate(None, "linear", False, "linear", 0.8, 0.0), calibrated], protected=0)


def test_auto_records_every_candidates_validation_log_loss_and_chooses_the_baseline():
    corpus = tiny_corpus(80, noise=0.5)
    auto = run_auto(corpus, UnicodeTokenizer(),
                    TrainConfig(seed=0, epochs=20, hidden=16, patience=20),
                    budget=Budget(candidates=2), cache=False, log=lambda _: None)
    losses = [c.val_log_loss for c in auto.candidates]
    assert all(np.isfinite(losses))
    # the library's rule (the protected candidate always): the baseline, the only linear model
    assert auto.chosen is auto.candidates[0] and auto.chosen.predictor == "linear"
    # each candidate's per-document correctness (a rule with accuracy_gain) is its accuracy
    assert all(c.val_correct is not None and c.val_correct.mean() == pytest.approx(c.val_accuracy)
               for c in auto.candidates)
    header = auto.table().splitlines()[0].split(",")
    assert header.index("val_log_loss") == header.index("val_accuracy") + 1
    # a combination is never worse on it than its graph model or the baseline alone
    base = auto.candidates[0].val_log_loss
    for g, c in zip(auto.candidates[1::2], auto.candidates[2::2]):
        assert c.predictor == "graph+linear" and c.val_log_loss <= min(g.val_log_loss, base) + 1e-12


def test_a_kept_smoothing_is_one_more_linear_candidate_and_the_answer(monkeypatch):
    """Where the cross-fitted choice keeps smoothing (forced here: any gain passes), the
    smoothed linear model is a candidate row of its own after the unsmoothed one, the partner
    of every combination and the answer; the built-in baseline stays as it was; a saved model
    answers its test documents as the search scored them."""
    from gfbgcn.text.linear import smoothing

    monkeypatch.setattr(smoothing, "Z", -1e9)
    corpus = tiny_corpus(160, noise=0.9)
    logs: list[str] = []
    auto = run_auto(corpus, UnicodeTokenizer(), TrainConfig(seed=0, epochs=10, hidden=8),
                    budget=Budget(candidates=2), cache=False, log=logs.append)
    linear = [c for c in auto.candidates if c.predictor == "linear"]
    assert len(linear) == 2 and auto.smoothing is not None and auto.smoothing.kept
    assert auto.smoothing_source == 0 and auto.chosen is linear[1]
    smoothed = auto.linears[1]
    assert smoothed.model.smoothing is not None and auto.baseline is auto.linears[0]
    assert auto.baseline.model.smoothing is None
    assert linear[1].linear == smoothed.model.description
    assert "smoothed over words" in linear[1].linear
    assert all(c.linear_index == 1 for c in auto.candidates if c.predictor == "graph+linear")
    assert any("smoothing the linear model" in line for line in logs)
    test = np.flatnonzero(~np.asarray(auto.graph.is_train))
    transductive = smoothed.probabilities[test].argmax(1)
    inductive = smoothed.model.predict_proba([corpus.texts[i] for i in test]).argmax(1)
    assert (transductive == inductive).mean() >= 0.9  # one more node against the graph's own


def test_auto_without_cross_fitting_keeps_one_linear_row(monkeypatch):
    from gfbgcn.text.linear import smoothing

    monkeypatch.setattr(smoothing, "Z", -1e9)
    auto = run_auto(tiny_corpus(160, noise=0.9), UnicodeTokenizer(),
                    TrainConfig(seed=0, epochs=5, hidden=8), budget=Budget(candidates=1),
                    cache=False, log=lambda _: None, cross_fit=False)
    assert auto.smoothing is None and auto.smoothing_source is None
    assert auto.cross_validated == []
    assert sum(c.predictor == "linear" for c in auto.candidates) == 1


def test_the_partner_is_the_linear_model_of_highest_cross_validated_accuracy():
    """With an encoder, the three linear models are cross-fitted on the training documents
    and the best held-out accuracy is the combinations' partner (and, the rule being the
    protected linear model, the answer, or its smoothed copy)."""
    from gfbgcn.text.train.features.encoder import CorpusEmbeddings

    corpus = tiny_corpus(160, noise=0.9)  # words barely tell the classes apart
    y = np.array([corpus.label_names.index(lab) for lab in corpus.labels])
    rng = np.random.default_rng(0)
    emb = rng.normal(size=(len(y), 8))
    emb[:, 0] += 2.0 * (2 * y - 1)  # the embeddings do

    def embed(texts):
        return np.stack([np.random.default_rng(abs(hash(t)) % 2 ** 32).normal(size=8)
                         for t in texts])

    encoder = CorpusEmbeddings(emb / np.linalg.norm(emb, axis=1, keepdims=True), embed,
                               {"name": "fake"})
    logs: list[str] = []
    auto = run_auto(corpus, UnicodeTokenizer(), TrainConfig(seed=0, epochs=5, hidden=8),
                    budget=Budget(candidates=1), cache=False, log=logs.append, encoder=encoder)
    scores = auto.cross_validated
    assert len(scores) == 3  # n-gram baseline, encoder head, both
    best = max(range(3), key=lambda i: (scores[i]["cv_accuracy"], -scores[i]["cv_log_loss"]))
    assert auto.smoothing_source == best
    assert scores[best]["cv_accuracy"] > scores[0]["cv_accuracy"]  # not the words alone
    assert any("cross-validated on the training documents" in line for line in logs)
    answer = auto.linear_of(auto.chosen)
    assert answer is auto.linears[-1 if auto.smoothing and auto.smoothing.kept else best]

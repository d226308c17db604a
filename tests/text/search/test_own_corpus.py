"""Own corpora: the linear baseline, --auto (validation only), the combined predictor,
and saving/loading/predicting with what --auto chose."""

from __future__ import annotations

import json

import numpy as np
import pytest

import gfbgcn
from gfbgcn.cli import main
from gfbgcn.core.errors import ModelLoadError
from gfbgcn.text.corpus.benchmarks import Corpus
from gfbgcn.text.predict.combined import CombinedPredictor
from gfbgcn.text.predict.inductive import InductiveTextGCN
from gfbgcn.text.predict.saved import load_model
from gfbgcn.text.search.auto import Budget, run_auto
from gfbgcn.text.tokenize.registry import UnicodeTokenizer
from gfbgcn.text.train.config import TrainConfig
from tests.text.toydata import save_combined_model

POOLS = {"šport": ["gol", "tekma", "ekipa", "napadalec", "liga", "pokal", "trener", "zmaga"],
         "denar": ["banka", "delnice", "trg", "dobiček", "obresti", "inflacija", "davki", "evro"]}
SHARED = ["in", "je", "da", "na", "za", "danes", "včeraj", "zelo"]


def tiny_corpus(n: int = 60, seed: int = 0, noise: float = 0.25) -> Corpus:
    """Two classes of Slovenian-looking words with shared filler; every 4th document is test."""
    rng = np.random.default_rng(seed)
    texts, labels = [], []
    for i in range(n):
        label = "šport" if i % 2 else "denar"
        words = list(rng.choice(POOLS[label], 4)) + list(rng.choice(SHARED, 4))
        if rng.random() < noise:  # words of the other class
            other = "denar" if label == "šport" else "šport"
            words += list(rng.choice(POOLS[other], 2))
        rng.shuffle(words)
        texts.append(" ".join(words).capitalize())
        labels.append(label)
    return Corpus("tiny", texts, labels, np.arange(n) % 4 != 3)


def write_csv(corpus: Corpus, path) -> None:
    rows = ["text,label,split"] + [
        f"\"{t}\",{y},{'train' if tr else 'test'}"
        for t, y, tr in zip(corpus.texts, corpus.labels, corpus.is_train)]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")


def _search(corpus: Corpus, budget: int = 3):
    base = TrainConfig(seed=0, epochs=15, hidden=16, patience=5)
    return run_auto(corpus, UnicodeTokenizer(), base, budget=Budget(candidates=budget),
                    cache=False, log=lambda _: None)


def test_auto_never_reads_test_labels():
    corpus = tiny_corpus(80, noise=0.9)  # hard enough that the candidates differ
    first = _search(corpus)
    assert len({c.val_accuracy for c in first.candidates}) > 1
    test = np.flatnonzero(~corpus.is_train)
    shuffled = list(corpus.labels)
    for i, j in zip(test, np.random.default_rng(1).permutation(test)):
        shuffled[i] = corpus.labels[j]
    for i in test[:3]:  # and some test labels flipped outright
        shuffled[i] = "denar" if corpus.labels[i] == "šport" else "šport"
    assert shuffled != corpus.labels
    second = _search(Corpus("tiny", corpus.texts, shuffled, corpus.is_train))
    # the baseline, then each trained model and its combination
    assert len(first.candidates) == 1 + 2 * 3
    assert [c.row() | {"seconds": 0} for c in first.candidates] == \
        [c.row() | {"seconds": 0} for c in second.candidates]
    assert first.chosen.row() | {"seconds": 0} == second.chosen.row() | {"seconds": 0}
    assert first.baseline.model.description == second.baseline.model.description
    assert first.baseline.grid == second.baseline.grid
    assert first.candidates[0].predictor == "linear"  # the cheapest candidate first
    assert first.candidates[1].setting.min_freq == 5  # then the paper's setting
    assert "val_accuracy" in first.table().splitlines()[0]


def test_exact_auto_command_writes_metrics_with_baseline(tmp_path, capsys):
    path = tmp_path / "FILE.csv"
    write_csv(tiny_corpus(), path)
    out, saved = tmp_path / "DIR", tmp_path / "model"
    assert main(["train", "--dataset", str(path), "--text-col", "text", "--label-col", "label",
                 "--split-col", "split", "--auto", "--seed", "0", "--out", str(out),
                 "--budget", "3", "--epochs", "15", "--hidden", "16", "--no-cache",
                 "--threads", "1", "--quiet", "--save", str(saved)]) == 0
    printed = capsys.readouterr().out
    assert "auto chose" in printed
    metrics = json.loads((out / "metrics.json").read_text())
    assert set(metrics["baseline"]["test"]) == set(metrics["test"])
    assert 0.0 <= metrics["baseline"]["test"]["accuracy"] <= 1.0
    assert metrics["auto"]["candidates"] == 7
    assert (out / "auto.csv").read_text().count("\n") == 8
    rows = (out / "predictions.csv").read_text().splitlines()
    assert rows[0] == "doc,label,predicted,probability,baseline_predicted"
    correct = [r.split(",")[1] == r.split(",")[2] for r in rows[1:]]
    assert np.mean(correct) == pytest.approx(metrics["test"]["accuracy"])
    model = gfbgcn.load(saved)
    pred = model.predict(["Gol in tekma ekipa liga", "banka delnice trg obresti"])
    assert len(pred.labels) == 2 and pred.probabilities.shape == (2, 2)
    assert main(["predict", str(saved), "--text", "pokal"]) == 0
    assert capsys.readouterr().out.startswith("row,label,probability")
    # the same command again: the run (with auto.csv) and the model are replaced, not refused
    assert main(["train", "--dataset", str(path), "--text-col", "text", "--label-col", "label",
                 "--split-col", "split", "--auto", "--seed", "0", "--out", str(out),
                 "--budget", "3", "--epochs", "15", "--hidden", "16", "--no-cache",
                 "--threads", "1", "--quiet", "--save", str(saved)]) == 0
    assert (out / "auto.csv").is_file() and gfbgcn.load(saved).label_names == model.label_names


def test_the_exact_command_without_extra_flags(tmp_path, capsys):
    """The issue's command verbatim (a tiny corpus keeps the full search fast)."""
    path = tmp_path / "FILE.csv"
    write_csv(tiny_corpus(40), path)
    out = tmp_path / "DIR"
    assert main(["train", "--dataset", str(path), "--text-col", "text", "--label-col", "label",
                 "--split-col", "split", "--auto", "--seed", "0", "--out", str(out)]) == 0
    metrics = json.loads((out / "metrics.json").read_text())
    assert "accuracy" in metrics["test"] and "accuracy" in metrics["baseline"]["test"]


def test_train_prints_and_records_the_baseline_or_not(tmp_path, capsys):
    path = tmp_path / "own.csv"
    write_csv(tiny_corpus(), path)
    common = ["train", "--dataset", str(path), "--min-freq", "1", "--hidden", "8", "--epochs",
              "5", "--quiet", "--no-cache", "--threads", "1"]
    assert main([*common, "--out", str(tmp_path / "a")]) == 0
    assert "baseline word+char n-gram TF-IDF + linear" in capsys.readouterr().out
    metrics = json.loads((tmp_path / "a" / "metrics.json").read_text())
    assert set(metrics["baseline"]["test"]) == set(metrics["test"])
    assert main([*common, "--no-baseline", "--out", str(tmp_path / "b")]) == 0
    assert "baseline" not in capsys.readouterr().out
    assert "baseline" not in json.loads((tmp_path / "b" / "metrics.json").read_text())


def test_combined_model_saves_loads_and_predicts(tmp_path):
    corpus = tiny_corpus()
    path = tmp_path / "combined"
    result, graph, base = save_combined_model(path, corpus, epochs=10, hidden=16)
    model = load_model(path)
    assert isinstance(model, CombinedPredictor) and model.weight == 0.3
    # the summary names the linear model chosen on validation and its n-gram features
    assert f"linear={base.model.description} ({base.model.idf.size} features)" in repr(model)
    texts = ["gol tekma liga", "banka trg evro", "neznana beseda"]
    graph_part = InductiveTextGCN.from_trained(result.model, graph, "gcn")
    with pytest.warns(UserWarning, match="no word"):
        expected = 0.3 * graph_part.predict_proba(texts) + 0.7 * base.model.predict_proba(texts)
    with pytest.warns(UserWarning) as caught:
        got = model.predict(texts)
    messages = [str(w.message) for w in caught]
    assert len(messages) == 1, messages  # one warning, the combined model's
    assert "graph part (0.30 of the mix)" in messages[0] and "linear part answered" in messages[0]
    assert np.allclose(got.probabilities, expected, atol=1e-6)
    assert got.labels[:2] == ["šport", "denar"]
    (path / "linear.json").write_text("{}", encoding="utf-8")
    with pytest.raises(ModelLoadError, match="linear.json: checksum mismatch"):
        load_model(path)


def test_reproduce_own_corpora_runs_resumes_and_reports(tmp_path):
    data = tmp_path / "data"
    (data / "text-extra").mkdir(parents=True)
    write_csv(tiny_corpus(40), data / "text-extra" / "slo-opinion.csv")
    out = tmp_path / "results"
    argv = ["reproduce", "own-corpora", "--datasets", "slo-opinion", "--seeds", "1",
            "--epochs", "3", "--data-dir", str(data), "--out", str(out)]
    assert main(argv) == 0
    (path,) = (out / "raw" / "own-corpora").glob("*=*.json")
    record = json.loads(path.read_text())
    for column in ("defaults", "auto", "baseline", "combined"):
        assert 0.0 <= record[column]["accuracy"] <= 1.0
    assert record["tokenizer"] == "unicode" and record["candidates"][0]["predictor"] == "linear"
    assert record["candidates"][1]["min_freq"] == 5 and record["baseline"]["classifier"]
    report = (out / "own-corpora.md").read_text()
    assert "| slo-opinion | 1 |" in report and "--auto ≥ linear baseline − 0.5" in report
    assert str(tmp_path) not in report
    before = path.stat().st_mtime_ns
    assert main(argv) == 0  # resumes: nothing re-run
    assert path.stat().st_mtime_ns == before


def test_auto_returns_the_baseline_when_no_graph_model_beats_it(tmp_path, capsys):
    """One epoch of a 4-unit graph model cannot beat the linear baseline on validation: the
    baseline is the answer, the output says so, and the saved model predicts as it does."""
    corpus = tiny_corpus(80, noise=0.5)
    path = tmp_path / "FILE.csv"
    write_csv(corpus, path)
    out, saved = tmp_path / "run", tmp_path / "model"
    assert main(["train", "--dataset", str(path), "--auto", "--seed", "0", "--budget", "1",
                 "--epochs", "1", "--hidden", "4", "--no-cache", "--threads", "1", "--quiet",
                 "--out", str(out), "--save", str(saved)]) == 0
    printed = capsys.readouterr().out
    assert "auto chose the linear baseline (" in printed
    from gfbgcn.cli.train_auto import why_linear
    from gfbgcn.text.search.selection import RULE

    assert why_linear(RULE) in printed
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["auto"]["predictor"] == "linear" and metrics["combined_weight"] == 0.0
    assert metrics["test"]["accuracy"] == metrics["baseline"]["test"]["accuracy"]
    rows = (out / "predictions.csv").read_text().splitlines()[1:]
    assert all(r.split(",")[2] == r.split(",")[4] for r in rows)  # the baseline's predictions
    model = gfbgcn.load(saved)
    assert isinstance(model, CombinedPredictor) and model.weight == 0.0
    texts = ["gol tekma liga", "banka trg evro"]
    assert np.allclose(model.predict_proba(texts), model.linear.predict_proba(texts))


def test_the_linear_answer_says_why_under_each_rule():
    from gfbgcn.cli.train_auto import why_linear
    from gfbgcn.text.search.selection import SelectionRule

    assert "keeps the linear model" in why_linear(SelectionRule(z=float("inf")))
    assert "passed the selection rule (log-loss, z >= 1)" in why_linear(SelectionRule(z=1.0))

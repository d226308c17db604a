"""A small random corpus shared by the inductive, save/load and command-line tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from gfbgcn.text.corpus.benchmarks import Corpus


def toy_corpus(n: int = 40, vocab: int = 30, seed: int = 0, classes: str = "abc") -> Corpus:
    """``n`` documents of 3-14 random words ``w0..w{vocab-1}``; labels cycle through
    ``classes``; the first 75 % are training documents."""
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(vocab)]
    texts = [" ".join(rng.choice(words, size=int(rng.integers(3, 15)))) for _ in range(n)]
    labels = [classes[i % len(classes)] for i in range(n)]
    return Corpus("toy", texts, labels, np.arange(n) < int(0.75 * n))


#: New documents for the saved toy model: known words, an unknown word, a one-word document.
NEW_DOCS = ["w1 w2 w3 w4", "w5 w5 w6 unknown", "w10 w11 w12 w13 w14 w2", "w0"]


def write_topic_csv(path: Path, n: int = 24) -> Path:
    """A two-topic (sport / money) user CSV with columns ``text,label`` at ``path``."""
    rng = np.random.default_rng(0)
    pools = {"sport": ["goal", "match", "team", "striker", "league", "cup"],
             "money": ["bank", "shares", "market", "profits", "rates", "inflation"]}
    rows = ["text,label"]
    for i in range(n):
        topic = "sport" if i % 2 else "money"
        rows.append(f"\"{' '.join(rng.choice(pools[topic], 8))}\",{topic}")
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


TOPIC_WORDS = {
    "sport": ("goal", "match", "team", "striker", "league", "cup", "coach", "penalty"),
    "money": ("bank", "shares", "market", "profits", "rates", "inflation", "bond", "stock"),
    "science": ("cell", "protein", "gene", "enzyme", "neuron", "lab", "molecule", "virus"),
}
FILLER_WORDS = ("today", "report", "people", "said", "week", "new", "year", "news")


def topic_documents(n: int = 30, seed: int = 0, topics: tuple[str, ...] = tuple(TOPIC_WORDS)
                    ) -> tuple[list[str], list[str]]:
    """``(texts, labels)``: ``n`` documents cycling through ``topics``, each of 5 words of its
    topic and 3 common filler words (a corpus a classifier can learn)."""
    rng = np.random.default_rng(seed)
    texts, labels = [], []
    for i in range(n):
        topic = topics[i % len(topics)]
        words = [*rng.choice(TOPIC_WORDS[topic], 5), *rng.choice(FILLER_WORDS, 3)]
        texts.append(" ".join(rng.permutation(words)))
        labels.append(topic)
    return texts, labels


def skewed_corpus(n: int = 80, seed: int = 0) -> Corpus:
    """Two overlapping topics, ``sport`` three times as frequent as ``money`` (every 4th
    document): 3 words of its topic, 2 of the other and 3 fillers each, so that weighing the
    classes changes a linear model; every 5th document is a test document."""
    rng = np.random.default_rng(seed)
    texts, labels = [], []
    for i in range(n):
        topic, other = ("money", "sport") if i % 4 == 0 else ("sport", "money")
        words = [*rng.choice(TOPIC_WORDS[topic], 3), *rng.choice(TOPIC_WORDS[other], 2),
                 *rng.choice(FILLER_WORDS, 3)]
        texts.append(" ".join(rng.permutation(words)))
        labels.append(topic)
    return Corpus("skewed", texts, labels, np.arange(n) % 5 != 4)


def save_combined_model(path: Path, corpus: Corpus, *, epochs: int, hidden: int,
                        weight: float = 0.3) -> tuple[Any, Any, Any]:
    """A combined model directory at ``path`` (a ``gcn`` graph part and the n-gram baseline
    with graph weight ``weight``, as ``train --auto --save`` writes one when the combination
    wins); returns ``(train result, graph, baseline)``."""
    from gfbgcn.text.graph.text_graph import GraphConfig, build_text_graph
    from gfbgcn.text.linear.baseline import baseline_for_graph
    from gfbgcn.text.predict.combined import write_linear
    from gfbgcn.text.predict.saved import save_trained
    from gfbgcn.text.tokenize.registry import UnicodeTokenizer
    from gfbgcn.text.train.config import TrainConfig
    from gfbgcn.text.train.run import train_text

    tok = UnicodeTokenizer()
    graph = build_text_graph(corpus, GraphConfig(min_freq=1, stop_words=None), tok, cache=False)
    result = train_text(graph, TrainConfig(model="gcn", epochs=epochs, hidden=hidden),
                        progress=False)
    base = baseline_for_graph(corpus, graph, 0.1, 0)
    save_trained(path, result, graph, corpus, extra_writer=lambda staging: {
        "combined": write_linear(staging, base.model, weight)})
    return result, graph, base


def features_cli_round_trip(tmp_path: Path, capsys: Any, csv: Path, features: str) -> str:
    """``gfbgcn train --features F --save`` on ``csv``, ``gfbgcn predict`` on the saved model,
    then ``--model sgc`` with the same features (refused: exit 2); returns that refusal's
    standard error."""
    import json

    from gfbgcn.cli import main

    saved = tmp_path / "model"
    assert main(["train", "--dataset", str(csv), "--features", features, "--min-freq", "1",
                 "--hidden", "8", "--epochs", "5", "--quiet", "--no-cache", "--threads", "1",
                 "--no-baseline", "--out", str(tmp_path / "run"), "--save", str(saved)]) == 0
    config = json.loads((tmp_path / "run" / "config.json").read_text())
    assert config["train"]["features"] == features
    capsys.readouterr()
    assert main(["predict", str(saved), "--text", "gol tekma liga"]) == 0
    assert capsys.readouterr().out.startswith("row,label,probability")
    # the whole models take no input features: refused in one line before any work
    assert main(["train", "--dataset", str(csv), "--features", features, "--model", "sgc",
                 "--quiet", "--no-cache"]) == 2
    return capsys.readouterr().err.strip()

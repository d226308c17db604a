"""A small random corpus shared by the inductive, save/load and command-line tests."""

from __future__ import annotations

from pathlib import Path

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

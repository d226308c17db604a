"""A small random corpus shared by the inductive and save/load tests."""

from __future__ import annotations

import numpy as np

from gfbgcn.text.corpora import Corpus


def toy_corpus(n: int = 40, vocab: int = 30, seed: int = 0, classes: str = "abc") -> Corpus:
    """``n`` documents of 3-14 random words ``w0..w{vocab-1}``; labels cycle through
    ``classes``; the first 75 % are training documents."""
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(vocab)]
    texts = [" ".join(rng.choice(words, size=int(rng.integers(3, 15)))) for _ in range(n)]
    labels = [classes[i % len(classes)] for i in range(n)]
    return Corpus("toy", texts, labels, np.arange(n) < int(0.75 * n))

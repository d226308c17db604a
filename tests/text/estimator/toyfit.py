"""The small fits shared by the estimator's tests: settings, documents and the toy split."""

from __future__ import annotations

from tests.text.toydata import toy_corpus

#: Tiny and quick: a graph of every word, a small model, a few epochs.
FAST = {"hidden": 8, "epochs": 30, "lr": 0.05, "min_freq": 1, "stop_words": None}
#: Documents of none of the toy corpus's texts (classified inductively).
UNSEEN = ["goal match team striker", "bank shares market rates", "protein gene cell lab"]


def toy_split(n: int = 40) -> tuple[list[str], list[str], list[str]]:
    """``(X, y, X_unlabeled)``: the toy corpus's training texts and labels, and its test texts."""
    corpus = toy_corpus(n)
    train = [i for i in range(n) if corpus.is_train[i]]
    test = [i for i in range(n) if not corpus.is_train[i]]
    return ([corpus.texts[i] for i in train], [corpus.labels[i] for i in train],
            [corpus.texts[i] for i in test])

"""TF-IDF, window co-occurrence counts and PPMI against hand computations and brute force."""

from __future__ import annotations

import math
from collections import Counter
from itertools import combinations

import numpy as np
import pytest
import scipy.sparse as sp

from gfbgcn.text.graph.counts import assemble_adjacency, ppmi_matrix, tfidf_matrix, window_counts
from gfbgcn.text.tokenize.preprocess import preprocess, whitespace_tokenize
from gfbgcn.text.graph.window_pairs import ppmi_from_upper, symmetrize, upper_window_counts


def tokenized(docs: list[str]):
    return preprocess(docs, whitespace_tokenize, min_freq=1, stop_words=None)


def brute_force_counts(docs: list[list[str]], window: int, mode: str):
    """Loops over explicit windows, as the reference implementation does."""
    windows = []
    for words in docs:
        if len(words) <= window:
            windows.append(words)
        else:
            windows.extend(words[s : s + window] for s in range(len(words) - window + 1))
    single = Counter()
    pair = Counter()
    for win in windows:
        single.update(set(win))
        if mode == "window":
            for a, b in combinations(sorted(set(win)), 2):
                pair[(a, b)] += 1
                pair[(b, a)] += 1
        else:
            for i in range(1, len(win)):
                for j in range(i):
                    if win[i] != win[j]:
                        pair[(win[i], win[j])] += 1
                        pair[(win[j], win[i])] += 1
    return pair, single, len(windows)


def test_tfidf_hand_computed():
    tc = tokenized(["a a b", "b c", "c c c a"])
    tfidf, idf = tfidf_matrix(tc)
    vocab = {w: i for i, w in enumerate(tc.vocab)}
    # df: a=2, b=2, c=2 over D=3 documents
    assert idf[vocab["a"]] == pytest.approx(math.log(3 / 2))
    dense = tfidf.toarray()
    assert dense[0, vocab["a"]] == pytest.approx(2 * math.log(1.5))
    assert dense[2, vocab["c"]] == pytest.approx(3 * math.log(1.5))
    assert dense[1, vocab["a"]] == 0.0


def chunked_window_counts(tc, window: int, mode: str):
    """The bounded-memory kernel, in chunks of a few tokens, made symmetric."""
    upper, singles, num_windows = upper_window_counts(tc, window, mode, chunk_tokens=7)
    assert upper.nnz == sp.triu(upper, k=1).nnz  # strictly upper triangular
    return symmetrize(upper), singles, num_windows


@pytest.mark.parametrize("kernel", [window_counts, chunked_window_counts])
@pytest.mark.parametrize("mode", ["window", "pair"])
@pytest.mark.parametrize("window", [2, 3, 5, 20])
def test_window_counts_match_brute_force(mode: str, window: int, kernel):
    rng = np.random.default_rng(window)
    words = [f"w{i}" for i in range(7)]
    docs = [
        [str(w) for w in rng.choice(words, size=n)]
        for n in (0, 1, 2, window - 1, window, window + 1, 3 * window + 2, 17)
    ]
    tc = tokenized([" ".join(d) for d in docs])
    pairs, singles, num_windows = kernel(tc, window, mode)
    ref_pair, ref_single, ref_windows = brute_force_counts(docs, window, mode)
    assert num_windows == ref_windows
    vocab = tc.vocab
    for i, w in enumerate(vocab):
        assert singles[i] == ref_single[w], w
    dense = pairs.toarray()
    ref = np.zeros_like(dense)
    for (a, b), c in ref_pair.items():
        ref[vocab.index(a), vocab.index(b)] = c
    np.testing.assert_array_equal(dense, ref)


def test_ppmi_keeps_only_positive_pmi():
    """W = 10 windows; W(0) = 5, W(1) = 2, W(2) = 4.
    PMI(0, 1) = log(2 * 10 / (5 * 2)) = log 2 > 0; PMI(0, 2) = log(2 * 10 / (5 * 4)) = 0: dropped;
    PMI(1, 2) = log(1 * 10 / (2 * 4)) = log 1.25."""
    pairs = sp.csr_matrix(np.array([[0, 2, 2], [2, 0, 1], [2, 1, 0]], dtype=np.float64))
    ppmi = ppmi_matrix(pairs, np.array([5.0, 2.0, 4.0]), 10).toarray()
    expected = np.array([[0, math.log(2), 0], [math.log(2), 0, math.log(1.25)],
                         [0, math.log(1.25), 0]])
    np.testing.assert_allclose(ppmi, expected)


def test_ppmi_from_upper_equals_ppmi_of_symmetric_counts():
    rng = np.random.default_rng(1)
    upper = sp.triu(sp.random(40, 40, density=0.2, random_state=rng, format="csr",
                              data_rvs=lambda n: rng.integers(1, 9, n).astype(float)), k=1)
    upper = sp.csr_matrix(upper)
    singles = rng.integers(5, 30, 40).astype(float)
    expected = ppmi_matrix(symmetrize(upper), singles, 50)
    got = ppmi_from_upper(upper, singles, 50)
    np.testing.assert_array_equal(got.indptr, expected.indptr)
    np.testing.assert_array_equal(got.indices, expected.indices)
    np.testing.assert_array_equal(got.data, expected.data)


def test_assemble_adjacency_puts_documents_first():
    tfidf = sp.csr_matrix(np.array([[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]]))
    ppmi = sp.csr_matrix(np.array([[0.0, 0.5, 0.0], [0.5, 0.0, 0.0], [0.0, 0.0, 0.0]]))
    adj = assemble_adjacency(tfidf, ppmi).toarray()
    expected = np.zeros((5, 5))
    expected[:2, 2:] = tfidf.toarray()
    expected[2:, :2] = tfidf.toarray().T
    expected[2:, 2:] = ppmi.toarray()
    np.testing.assert_array_equal(adj, expected)
    assert np.all(np.diag(adj) == 0)

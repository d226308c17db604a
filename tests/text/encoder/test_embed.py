"""Embedding with the tiny BERT: shapes, pooling against the model's own hidden states,
independence from batching, and long documents truncated or averaged over windows."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch

from gfbgcn.core.errors import DocumentTypeError
from gfbgcn.text.encoder import load_encoder
from gfbgcn.text.encoder.windows import cut_text, token_windows
from tests.text.encoder.tinybert import WORDS, write_sentence_transformers

TEXTS = ["the market said oil price", "good film", "", "a bad year for trade!",
         "It is not that the news was bad, it was good.", "zebra quux",
         "the the the the the the the the the", "x"]


def _words(n: int, seed: int = 0) -> list[str]:
    """``n`` words of the vocabulary (one token each)."""
    return list(np.random.default_rng(seed).choice(WORDS, size=n))


def _direct(folder: Path, texts: list[str], pooling: str) -> np.ndarray:
    """Pooled vectors computed here from the model's hidden states (transformers directly)."""
    from transformers import AutoModel, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(folder))
    model = AutoModel.from_pretrained(str(folder)).eval()
    batch = tokenizer(texts, padding=True, return_tensors="pt")
    with torch.no_grad():
        hidden = model(**batch).last_hidden_state
    mask = batch["attention_mask"].unsqueeze(-1).float()
    if pooling == "mean":
        return ((hidden * mask).sum(1) / mask.sum(1)).numpy()
    if pooling == "cls":
        return hidden[:, 0].numpy()
    return hidden.masked_fill(mask == 0, -1e9).max(1).values.numpy()


def test_shapes_dtype_and_unit_rows(plain_dir: Path) -> None:
    encoder = load_encoder(plain_dir)
    vectors = encoder.embed(TEXTS)
    assert vectors.shape == (len(TEXTS), 32) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1, atol=1e-6)
    assert encoder.embed([]).shape == (0, 32)


@pytest.mark.parametrize("pooling", ["mean", "cls", "max"])
def test_pooling_matches_the_hidden_states(plain_dir: Path, tmp_path: Path,
                                           pooling: str) -> None:
    raw = write_sentence_transformers(plain_dir, tmp_path / "raw", pooling=pooling,
                                      normalize=False)
    expected = _direct(raw, TEXTS, pooling)
    np.testing.assert_allclose(load_encoder(raw).embed(TEXTS), expected, atol=1e-5)
    unit = write_sentence_transformers(plain_dir, tmp_path / "unit", pooling=pooling)
    np.testing.assert_allclose(load_encoder(unit).embed(TEXTS),
                               expected / np.linalg.norm(expected, axis=1, keepdims=True),
                               atol=1e-5)


def test_a_text_gets_the_same_vector_whatever_its_batch(plain_dir: Path) -> None:
    encoder = load_encoder(plain_dir)
    together = encoder.embed(TEXTS, batch_size=len(TEXTS))
    alone = np.vstack([encoder.embed([t]) for t in TEXTS])
    order = np.random.default_rng(1).permutation(len(TEXTS))
    shuffled = encoder.embed([TEXTS[i] for i in order], batch_size=3)
    np.testing.assert_allclose(together, alone, atol=1e-6)
    np.testing.assert_allclose(shuffled, together[order], atol=1e-6)
    twice = encoder.embed(TEXTS[:2] * 2)
    np.testing.assert_array_equal(twice[:2], twice[2:])


def test_chunks_are_the_token_weighted_mean_of_their_windows(plain_dir: Path,
                                                              tmp_path: Path) -> None:
    """max_length 16: windows of 14 words (one token each) plus [CLS] and [SEP]."""
    raw = write_sentence_transformers(plain_dir, tmp_path / "raw", normalize=False,
                                      max_seq_length=16)
    words = _words(14 * 3 + 5)  # three full windows and one of 5 tokens
    document = " ".join(words)
    windows = [" ".join(words[i:i + 14]) for i in range(0, len(words), 14)]
    weights = np.array([14, 14, 14, 5], dtype=np.float64)

    truncate = load_encoder(raw).embed([document, windows[0]])
    np.testing.assert_array_equal(truncate[0], truncate[1])  # the first window alone
    parts = load_encoder(raw).embed(windows).astype(np.float64)
    chunks = load_encoder(raw, long_documents="chunks").embed([document])[0]
    np.testing.assert_allclose(chunks, weights @ parts / weights.sum(), atol=1e-6)
    first_two = load_encoder(raw, long_documents="chunks", max_chunks=2).embed([document])[0]
    np.testing.assert_allclose(first_two, parts[:2].mean(axis=0), atol=1e-6)
    # normalised after averaging, not before
    unit = write_sentence_transformers(plain_dir, tmp_path / "unit", max_seq_length=16)
    mean = weights @ parts / weights.sum()
    np.testing.assert_allclose(load_encoder(unit, long_documents="chunks").embed([document])[0],
                               mean / np.linalg.norm(mean), atol=1e-6)
    # a short document is one window: the same vector in both modes, bit for bit
    short = ["good film", "the market"]
    np.testing.assert_array_equal(load_encoder(unit, long_documents="chunks").embed(short),
                                  load_encoder(unit).embed(short))


def test_cut_text_ends_before_whitespace() -> None:
    assert cut_text("short", 10) == "short"
    assert cut_text("aaaa bbbb cccc", 11) == "aaaa bbbb"
    assert cut_text("aaaa bbbb   cccc", 11) == "aaaa bbbb"
    assert cut_text("a" * 30, 10) == "a" * 10  # no whitespace near the cut


class _Recording:
    """A tokenizer that records the longest text it was given."""

    def __init__(self, tokenizer) -> None:
        self.tokenizer, self.longest = tokenizer, 0

    def __call__(self, texts, **kwargs):
        self.longest = max([self.longest, *map(len, texts)])
        return self.tokenizer(texts, **kwargs)

    def __getattr__(self, name):
        return getattr(self.tokenizer, name)


@pytest.mark.parametrize("mode", ["truncate", "chunks"])
def test_a_huge_document_is_never_tokenized_whole(plain_dir: Path, mode: str) -> None:
    encoder = load_encoder(plain_dir, max_length=16, long_documents=mode, max_chunks=3)
    words = _words(2_000_000)  # ~10 MB
    huge = " ".join(words)
    recording = _Recording(encoder.tokenizer)
    keep = 3 if mode == "chunks" else 1
    start = time.perf_counter()
    windows, owner = token_windows(recording, [huge], 16, keep)
    assert time.perf_counter() - start < 2.0
    assert recording.longest < 10_000 and len(windows) == keep and owner.tolist() == [0] * keep
    np.testing.assert_array_equal(encoder.embed([huge]),
                                  encoder.embed([" ".join(words[:14 * keep])]))


def test_a_prefix_too_short_for_the_budget_is_tried_longer(plain_dir: Path) -> None:
    """Whitespace carries no tokens: a text of few words among long runs of spaces needs
    more characters than the first cut gives, and gets the same windows as the whole text."""
    encoder = load_encoder(plain_dir, max_length=16, long_documents="chunks", max_chunks=2)
    words = _words(40)
    spaced = (" " * 300).join(words)
    assert len(cut_text(spaced, 14 * 2 * 8)) < len(spaced)
    np.testing.assert_array_equal(encoder.embed([spaced]),
                                  encoder.embed([" ".join(words[:28])]))


def test_progress_bar_and_non_strings(plain_dir: Path, capsys: pytest.CaptureFixture,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    encoder = load_encoder(plain_dir)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)  # bars draw on a terminal only
    np.testing.assert_array_equal(encoder.embed(TEXTS, progress=True), encoder.embed(TEXTS))
    assert "embedding" in capsys.readouterr().err
    with pytest.raises(DocumentTypeError, match="document 1 is not a string"):
        encoder.embed(["fine", None])  # type: ignore[list-item]

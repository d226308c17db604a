"""The English stop words shipped with gfbgcn: NLTK's list word for word, read without NLTK, its
licence beside it in the package."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import pytest

from gfbgcn.core.errors import StopWordsError
from gfbgcn.text.tokenize import stop_words

#: sha256 of NLTK's English stop words (its stopwords corpus, 179 words), sorted, one a line.
NLTK_ENGLISH_SHA256 = "63c081f949766b37ecdc95ac5b55639990d34295166996357ff47df805fda211"
ROOT = Path(__file__).resolve().parents[3]


def _digest(words: frozenset[str]) -> str:
    return hashlib.sha256("\n".join(sorted(words)).encode()).hexdigest()


def test_the_shipped_english_list_is_nltks() -> None:
    words = stop_words.shipped_stop_words("english")
    assert len(words) == 179 and _digest(words) == NLTK_ENGLISH_SHA256
    assert {"the", "not", "nor", "don't", "mightn", "ma", "o"} <= words


def test_the_shipped_english_list_equals_nltks_corpus_where_it_is_installed() -> None:
    from nltk.corpus import stopwords

    try:
        nltk_words = frozenset(stopwords.words("english"))
    except LookupError:
        pytest.skip("NLTK's stopwords corpus is not installed (set NLTK_DATA)")
    assert stop_words.shipped_stop_words("english") == nltk_words


def test_english_needs_neither_nltk_nor_its_data(monkeypatch) -> None:
    """NLTK's data absent and its download failing: ``english`` (the paper's setting, the
    default above 20,000 documents) still loads; another language is the one-line error."""
    def missing(language: str = "english") -> frozenset[str]:
        raise StopWordsError("NLTK's stop-word corpus was not found")

    monkeypatch.setattr(stop_words, "nltk_stop_words", missing)
    monkeypatch.setattr(stop_words, "nltk_languages", lambda: ())
    monkeypatch.setitem(sys.modules, "nltk", None)  # importing NLTK fails
    stop_words.load_stop_words.cache_clear()
    try:
        assert stop_words.parse_stop_words("english") == "english"
        loaded = stop_words.load_stop_words("English")
        assert loaded >= stop_words.shipped_stop_words("english") and "the" in loaded
        assert stop_words.stop_words_digest("english") is None  # graph cache keys unchanged
        with pytest.raises(StopWordsError, match="stop-word corpus was not found"):
            stop_words.load_stop_words("french")
    finally:
        stop_words.load_stop_words.cache_clear()


def test_the_licence_ships_beside_the_list() -> None:
    data = Path(stop_words.__file__).parent / "data"
    licence = (data / "LICENSE-snowball.txt").read_text(encoding="utf-8")
    assert "Martin Porter" in licence and "Redistribution and use" in licence
    header = (data / "english_stop_words.txt").read_text(encoding="utf-8")
    assert "LICENSE-snowball.txt" in header
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '"text/tokenize/data/*.txt"' in pyproject  # package data: both go into the wheel

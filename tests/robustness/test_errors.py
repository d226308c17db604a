"""A. Every user error is one ``error:`` line with exit status 2, checked before any work;
``--debug`` or ``GFBGCN_DEBUG=1`` brings the traceback back."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import FAST


def test_missing_corpus_file(cli, tmp_path):
    cli("train", "--dataset", tmp_path / "nope.csv", *FAST).assert_user_error(
        "corpus file not found", "nope.csv")


def test_directory_given_as_corpus(cli, tmp_path):
    cli("train", "--dataset", tmp_path, *FAST).assert_user_error("is a directory, not a corpus")


def test_unknown_benchmark_name_is_named(cli):
    cli("data", "stats", "--dataset", "r9").assert_user_error("r9", "benchmark name")


def test_unknown_extension(cli, tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_text("text,label\nhello,a\n")
    cli("data", "build", "--dataset", path).assert_user_error("unsupported extension",
                                                                 "corpus.txt")


def test_no_usable_rows(cli, tmp_path):
    path = tmp_path / "empty.csv"
    path.write_text("text,label\n\n")
    cli("train", "--dataset", path, *FAST).assert_user_error("no usable rows", "empty.csv")


@pytest.mark.parametrize(("option", "value", "expected"), [
    ("--window", "0", "in [2, 10000]"),
    ("--window", "1", "in [2, 10000]"),
    ("--window", str(10**20), "in [2, 10000]"),
    ("--min-freq", "0", ">= 1"),
    ("--patience", "0", ">= 1"),
    ("--epochs", "0", ">= 1"),
    ("--hidden", "0", ">= 1"),
    ("--lr", "-0.1", "in (0, 10]"),
    ("--lr", "nan", "finite"),
    ("--lr", "1e308", "in (0, 10]"),
    ("--dropout", "1", "in [0, 1)"),
    ("--weight-decay", "-1", "in [0, 10]"),
    ("--weight-decay", "1e308", "in [0, 10]"),
    ("--fixed-lambda", "1e308", "in [-1000, 1000]"),
    ("--val-ratio", "0", "in (0, 1)"),
    ("--val-ratio", "1", "in (0, 1)"),
    ("--seed", "-1", "in [0, 4294967295]"),
    ("--seed", str(2**64), "in [0, 4294967295]"),
    ("--seed", str(2**32), "in [0, 4294967295]"),
    ("--split-seed", "-3", ">= 0"),
    ("--epochs", "ten", "not a whole number"),
    ("--encoding", "klingon", "unknown encoding"),
])
def test_option_out_of_range_is_refused_before_any_work(cli, corpus, tmp_path, option,
                                                        value, expected):
    result = cli("train", "--dataset", corpus, *FAST, option, value, "--out", tmp_path / "r")
    assert result.status == 2 and "Traceback" not in result.err
    assert f"argument {option}: " in result.err and expected in result.err
    assert not (tmp_path / "r").exists()  # nothing was trained or written


def test_help_shows_the_ranges(cli):
    text = cli("train", "--help").out
    for fragment in ("(200; >= 1)", "(10; >= 1)", "(0.02; in (0, 10])", "(0; in [0, 10])",
                     "(0.5; in [0, 1))",
                     "(0.1; in (0, 1))", "--encoding", "--debug", "(20; in [2, 10000])",
                     "(0; in [0, 4294967295])"):
        assert fragment in " ".join(text.split()), fragment


def test_missing_nltk_stop_words_is_one_line(cli, corpus, monkeypatch):
    from gfbgcn.core.errors import StopWordsError
    from gfbgcn.text.tokenize import stop_words as tokenizers

    def missing(language="english"):
        raise StopWordsError("NLTK's stop-word corpus was not found\n"
                             "*****\n  set NLTK_DATA\n*****")

    monkeypatch.setattr(tokenizers, "nltk_stop_words", missing)
    monkeypatch.setattr(tokenizers, "nltk_languages", lambda: ())
    tokenizers.load_stop_words.cache_clear()  # earlier tests may have loaded French already
    try:  # (English ships with gfbgcn: any other language is NLTK's)
        cli("train", "--dataset", corpus, *FAST, "--stop-words", "french").assert_user_error(
            "stop-word corpus", "set NLTK_DATA")
    finally:
        tokenizers.load_stop_words.cache_clear()


def test_failed_nltk_download_prints_nothing_of_its_own(monkeypatch, capsys):
    # NLTK's downloader writes "[nltk_data] Error loading ..." lines to the stream it is given;
    # the one-line stop-word error is all a user should see.
    import nltk

    from gfbgcn.text.tokenize import stop_words as preprocess

    def failing_download(*args, print_error_to=sys.stderr, **kwargs):
        print("[nltk_data] Error loading stopwords: no network", file=print_error_to)
        return False

    monkeypatch.setattr(nltk, "download", failing_download)
    assert preprocess.download_stop_words_quietly() is False
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""


def test_a_bug_is_one_line_with_status_1_and_debug_shows_it(cli, corpus, monkeypatch):
    from gfbgcn.text.train import run as train

    def broken(*args, **kwargs):
        raise ZeroDivisionError("planted bug")

    monkeypatch.setattr(train, "train_text", broken)
    result = cli("train", "--dataset", corpus, *FAST)
    assert result.status == 1 and "Traceback" not in result.err
    assert result.error_lines == [result.error_lines[0]]
    assert "internal error (ZeroDivisionError: planted bug)" in result.err
    assert "--debug" in result.err
    with pytest.raises(ZeroDivisionError):
        cli("train", "--dataset", corpus, *FAST, "--debug")
    with pytest.raises(ZeroDivisionError):
        cli("--debug", "train", "--dataset", corpus, *FAST)
    monkeypatch.setenv("GFBGCN_DEBUG", "1")
    with pytest.raises(ZeroDivisionError):
        cli("train", "--dataset", corpus, *FAST)


def _command(*argv: str) -> subprocess.CompletedProcess:
    root = Path(__file__).resolve().parents[2]
    environ = {**os.environ, "PYTHONPATH": str(root / "src")}
    environ.pop("GFBGCN_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "gfbgcn", *argv], capture_output=True,
                          text=True, env=environ, timeout=120)


def test_command_line_error_is_one_line_with_status_2(tmp_path):
    """The real process (``--debug``/``GFBGCN_DEBUG`` are checked in process above)."""
    missing = str(tmp_path / "missing.csv")
    plain = _command("data", "stats", "--dataset", missing)
    assert plain.returncode == 2
    assert plain.stderr.strip().splitlines() == [f"error: corpus file not found: {missing} "
                                                 "(nor a benchmark name: 20ng, r8, r52, ohsumed)"]

"""Tokenization of any language, stop words by language or file, and their command-line errors."""

from __future__ import annotations

import pytest

from gfbgcn.cli import main
from gfbgcn.core.errors import StopWordsError, TokenizerError
from gfbgcn.text.corpus.benchmarks import Corpus
from gfbgcn.text.graph.text_graph import GraphConfig, build_text_graph, graph_cache_key
from gfbgcn.text.params import default_tokenizer
from gfbgcn.text.tokenize.clean import textgcn_tokenize, whitespace_tokenize
from gfbgcn.text.tokenize.preprocess import preprocess
from gfbgcn.text.tokenize.registry import (
    UnicodeTokenizer,
    make_tokenizer,
    resolve_tokenizer,
    tokenizer_from_name,
)
from gfbgcn.text.tokenize.stop_words import load_stop_words

MIXED = "Šport: čas in življenje, 北京欢迎你 Привет мир"


def test_textgcn_tokenizer_still_destroys_non_ascii_text():
    # the paper's tokenizer, unchanged (benchmark statistics depend on it)
    assert textgcn_tokenize(MIXED) == ["port", "as", "in", "ivljenje", ","]


def test_unicode_keeps_slovenian_chinese_and_russian_words():
    assert UnicodeTokenizer()(MIXED) == [
        "šport", "čas", "in", "življenje", "北", "京", "欢", "迎", "你", "привет", "мир"]
    assert UnicodeTokenizer(cjk="bigrams")("北京欢迎你 ok 好") == [
        "北京", "京欢", "欢迎", "迎你", "ok", "好"]


def test_unicode_casefolds_normalises_numbers_and_apostrophes():
    tok = UnicodeTokenizer()
    assert tok("STRASSE Straße ＡＢＣ don't 2016 x2") == [
        "strasse", "strasse", "abc", "don't", "2016", "x2"]
    assert UnicodeTokenizer(numbers=False)("in 2016 and ٣٤ x2") == ["in", "and", "x2"]
    assert tok("สวัสดีครับ")[:3] == ["ส", "ว", "ั"]  # Thai: no spaces, split into characters


def test_names_round_trip_and_reload():
    for numbers in (True, False):
        for cjk in ("chars", "bigrams"):
            tok = UnicodeTokenizer(numbers=numbers, cjk=cjk)
            again = tokenizer_from_name(tok.cache_key)
            assert isinstance(again, UnicodeTokenizer)
            assert (again.numbers, again.cjk) == (numbers, cjk)
            assert resolve_tokenizer(tok.cache_key)(MIXED) == tok(MIXED)
    assert resolve_tokenizer("textgcn") is textgcn_tokenize
    assert resolve_tokenizer("whitespace") is whitespace_tokenize
    # the module path the built-in had before it was named: no longer a name
    assert tokenizer_from_name("gfbgcn.text.preprocess.textgcn_tokenize") is None
    assert tokenizer_from_name("unicode+trigrams") is None
    with pytest.raises(TokenizerError, match="unknown tokenizer 'spacy'"):
        make_tokenizer("spacy")


def test_default_tokenizer_by_corpus():
    assert default_tokenizer(benchmark=True) == "textgcn"
    assert default_tokenizer(benchmark=False) == "unicode"


def test_stop_words_by_language_and_file(tmp_path):
    assert "in" in load_stop_words("slovene") and "и" in load_stop_words("russian")
    path = tmp_path / "stop.txt"
    path.write_text("\ufeffČas  # a comment\n\nthe\n", encoding="utf-8")
    assert load_stop_words(str(path)) == {"Čas", "čas", "the"}
    tc = preprocess(["Čas je the zlato", "čas zlato"], UnicodeTokenizer(), min_freq=1,
                    stop_words=str(path))
    assert tc.vocab == ["zlato", "je"]
    with pytest.raises(StopWordsError, match="unknown stop-word language 'klingon'"):
        load_stop_words("klingon")
    with pytest.raises(StopWordsError, match="missing.txt: cannot read"):
        load_stop_words(str(tmp_path / "missing.txt"))


def test_graph_cache_key_includes_tokenizer_and_stop_words(tmp_path):
    corpus = Corpus("c", ["a b c", "b c d", "c d e"], ["x", "y", "x"], [True, True, False])
    base = GraphConfig(min_freq=1)
    keys = {graph_cache_key(corpus, base, "unicode"),
            graph_cache_key(corpus, base, "unicode+bigrams"),
            graph_cache_key(corpus, base, "textgcn"),
            graph_cache_key(corpus, GraphConfig(min_freq=1, stop_words=None), "unicode")}
    assert len(keys) == 4
    stop = tmp_path / "stop.txt"
    stop.write_text("a\n", encoding="utf-8")
    cfg = GraphConfig(min_freq=1, stop_words=str(stop))
    before = graph_cache_key(corpus, cfg, "unicode")
    load_stop_words.cache_clear()
    stop.write_text("b\n", encoding="utf-8")
    assert graph_cache_key(corpus, cfg, "unicode") != before  # the file's content keys it
    graph = build_text_graph(corpus, cfg, UnicodeTokenizer(), cache_root=tmp_path)
    assert "b" not in graph.vocab and graph.tokenizer == "unicode"
    load_stop_words.cache_clear()


@pytest.mark.parametrize("flags, message", [
    (["--tokenizer", "spacy"], "error: unknown tokenizer 'spacy'"),
    (["--stop-words", "klingon"], "error: unknown stop-word language 'klingon'"),
    (["--stop-words", "no/such/file.txt"], "error: no/such/file.txt: cannot read"),
    (["--tokenizer", "textgcn", "--no-numbers"], "error: --no-numbers and --cjk-split apply"),
])
def test_bad_tokenization_options_are_one_line_errors(flags, message, tmp_path, capsys):
    corpus = tmp_path / "c.csv"
    corpus.write_text("text,label\na b,x\nb c,y\n", encoding="utf-8")
    assert main(["data", "stats", "--dataset", str(corpus), *flags]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(message) and "\n" not in err


def test_data_stats_uses_the_unicode_tokenizer_for_a_file(tmp_path, capsys):
    corpus = tmp_path / "c.csv"
    corpus.write_text("text,label,split\nČas je zlato,a,train\nčas teče,b,train\n"
                      "Привет мир,a,test\n", encoding="utf-8")
    assert main(["data", "stats", "--dataset", str(corpus), "--min-freq", "1",
                 "--stop-words", "none", "--json", "--no-cache"]) == 0
    import json

    stats = json.loads(capsys.readouterr().out)
    assert stats["words"] == 6 and stats["empty_docs"] == 0  # čas counted once, casefolded

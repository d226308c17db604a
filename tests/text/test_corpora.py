"""Corpus loaders: benchmarks on the real data, users' files, and every error path."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from gfbgcn.text import corpora
from gfbgcn.text.corpora import (
    CorpusFormatError,
    DatasetNotFoundError,
    RemoteFile,
    load_benchmark,
    load_table,
)
from gfbgcn.text.graph import build_text_graph

# Table "statistics of datasets" of the paper: docs, train, test, words, nodes, classes, avg len
PAPER_STATS = {
    "r8": (7674, 5485, 2189, 7688, 15362, 8, 65.72),
    "r52": (9100, 6532, 2568, 8892, 17992, 52, 69.82),
    "ohsumed": (7400, 3357, 4043, 14157, 21557, 23, 135.82),
}


@pytest.mark.realdata
@pytest.mark.parametrize("name", sorted(PAPER_STATS))
def test_statistics_match_the_paper(name: str, data_dir):
    graph = build_text_graph(load_benchmark(name, data_dir))
    s = graph.stats()
    docs, train, test, words, nodes, classes, avg = PAPER_STATS[name]
    assert (s["docs"], s["train_docs"], s["test_docs"]) == (docs, train, test)
    assert (s["words"], s["nodes"], s["classes"]) == (words, nodes, classes)
    assert round(s["average_length"], 2) == avg
    assert s["empty_docs"] == 0


@pytest.mark.realdata
def test_20ng_reads_latin1_archive_directly(data_dir):
    corpus = load_benchmark("20ng", data_dir)
    assert len(corpus) == 18846 and int(corpus.is_train.sum()) == 11314
    assert len(corpus.label_names) == 20
    assert any("\xe9" in t or "\xa0" in t for t in corpus.texts), "Latin-1 bytes decoded"


def test_missing_benchmark_names_files_directory_and_url(tmp_path):
    with pytest.raises(DatasetNotFoundError) as err:
        load_benchmark("r8", tmp_path, download=False)
    msg = str(err.value)
    assert "r8-train-all-terms.txt" in msg and "r8-test-all-terms.txt" in msg
    assert str(tmp_path) in msg and "cachopo" in msg


def test_download_checks_sha256(tmp_path, monkeypatch):
    src = tmp_path / "src.txt"
    src.write_bytes(b"earn\tsome text\n")
    good = hashlib.sha256(src.read_bytes()).hexdigest()
    root = tmp_path / "root"
    for sha, should_work in ((good, True), ("0" * 64, False)):
        files = (RemoteFile("text/x/train.txt", src.as_uri(), sha), )
        monkeypatch.setitem(corpora.BENCHMARK_FILES, "x", files)
        if should_work:
            (path,) = corpora.ensure_files("x", root)
            assert path.read_bytes() == src.read_bytes()
            path.unlink()
        else:
            with pytest.raises(DatasetNotFoundError, match="sha256"):
                corpora.ensure_files("x", root)
            assert not (root / "text/x/train.txt").exists(), "a bad download is discarded"


def test_malformed_all_terms_line_names_file_and_line(tmp_path, monkeypatch):
    d = tmp_path / "text" / "r8"
    d.mkdir(parents=True)
    (d / "r8-train-all-terms.txt").write_text("earn\tgood line\nno tab here\n")
    (d / "r8-test-all-terms.txt").write_text("earn\tfine\n")
    with pytest.raises(CorpusFormatError, match=r"r8-train-all-terms.txt:2"):
        load_benchmark("r8", tmp_path, download=False)


def test_empty_corpus_is_an_error(tmp_path):
    d = tmp_path / "text" / "r8"
    d.mkdir(parents=True)
    (d / "r8-train-all-terms.txt").write_text("")
    (d / "r8-test-all-terms.txt").write_text("\n")
    with pytest.raises(CorpusFormatError, match="empty"):
        load_benchmark("r8", tmp_path, download=False)


def test_csv_with_split_column(tmp_path):
    path = tmp_path / "c.csv"
    path.write_text('text,label,split\n"hello, world",pos,train\nbad day,neg,test\n')
    corpus = load_table(path)
    assert corpus.texts == ["hello, world", "bad day"]
    assert corpus.is_train.tolist() == [True, False]


def test_stratified_split_is_seeded_and_reported(tmp_path):
    path = tmp_path / "c.tsv"
    rows = [f"doc {i}\t{'ab'[i % 2]}" for i in range(40)]
    path.write_text("text\tlabel\n" + "\n".join(rows) + "\n")
    a, b = load_table(path, seed=1), load_table(path, seed=1)
    np.testing.assert_array_equal(a.is_train, b.is_train)
    assert int((~a.is_train).sum()) == 4
    labels = np.array(a.labels)
    assert (labels[~a.is_train] == "a").sum() == 2, "stratified per class"
    assert any("seed 1" in n for n in a.notes)


@pytest.mark.parametrize(
    "content, problem",
    [
        ("text,label\nok,a\n,b\n", "missing text"),
        ("text,label\nok,a\nfine,\n", "missing label"),
        ("text,label\nok,a\nx,y,z\n", "expected 2 columns"),
    ],
)
def test_bad_csv_rows_name_file_and_line(tmp_path, content, problem):
    path = tmp_path / "c.csv"
    path.write_text(content)
    with pytest.raises(CorpusFormatError, match=rf"c.csv:3: {problem}"):
        load_table(path)
    corpus = load_table(path, skip_bad_rows=True)
    assert len(corpus) == 1 and "skipped 1 bad row" in corpus.notes[0]


def test_undecodable_bytes_name_the_line(tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_bytes(b'{"text": "ok", "label": "a"}\n{"text": "\xff\xfe", "label": "b"}\n')
    with pytest.raises(CorpusFormatError, match=r"c.jsonl:2: undecodable"):
        load_table(path)
    csv_path = tmp_path / "c.csv"
    csv_path.write_bytes(b"text,label\nok,a\nbad \xff,b\nfine,c\n")
    with pytest.raises(CorpusFormatError, match=r"c.csv:3: undecodable"):
        load_table(csv_path)
    assert load_table(csv_path, skip_bad_rows=True).texts == ["ok", "fine"]

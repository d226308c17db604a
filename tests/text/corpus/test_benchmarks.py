"""Benchmark corpora: the paper's statistics on the real data, downloads, and every error path."""

from __future__ import annotations

import hashlib

import pytest

from gfbgcn.core.errors import CorpusFormatError, DatasetUnavailableError
from gfbgcn.text.corpus import benchmarks as text_data
from gfbgcn.text.corpus.benchmarks import (
    Corpus,
    RemoteFile,
    canonical_name,
    load_benchmark,
    load_benchmark_texts_and_labels,
    load_corpus,
)
from gfbgcn.text.graph.text_graph import build_text_graph

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
    with pytest.raises(DatasetUnavailableError) as err:
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
        monkeypatch.setitem(text_data.BENCHMARK_FILES, "x", files)
        if should_work:
            (path,) = text_data.ensure_files("x", root)
            assert path.read_bytes() == src.read_bytes()
            path.unlink()
        else:
            with pytest.raises(DatasetUnavailableError, match="sha256"):
                text_data.ensure_files("x", root)
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


def test_canonical_names_and_aliases():
    assert canonical_name("R8") == "r8" and canonical_name("20newsgroups") == "20ng"
    assert canonical_name("r-52") == "r52"
    with pytest.raises(ValueError, match="unknown text benchmark"):
        canonical_name("imdb")


def test_load_corpus_reads_a_file_or_a_benchmark(tmp_path, monkeypatch):
    path = tmp_path / "r8.csv"  # a file named like a benchmark is still a file
    path.write_text("text,label,split\nhello world,a,train\nbye,b,test\n")
    corpus = load_corpus(path)
    assert corpus.texts == ["hello world", "bye"] and corpus.name == "r8"
    seen = []
    monkeypatch.setattr(text_data, "load_benchmark", lambda key, d: seen.append((key, d)) or "b")
    assert load_corpus("R-8", "root") == "b" and seen == [("r8", "root")]


def test_corpus_invariants_and_subset():
    corpus = Corpus("c", ["a", "b", "c"], ["y", "x", "y"], [True, False, True])
    assert corpus.label_names == ["x", "y"] and corpus.label_ids().tolist() == [1, 0, 1]
    sub = corpus.subset([2, 0], name="s")
    assert (sub.name, sub.texts, sub.labels, sub.is_train.tolist()) == (
        "s", ["c", "a"], ["y", "y"], [True, True])
    assert len(sub) == 2 and sub.sources_str() == "in memory"
    with pytest.raises(ValueError, match="same length"):
        Corpus("c", ["a"], ["x", "y"], [True])
    with pytest.raises(CorpusFormatError, match="empty"):
        Corpus("c", [], [], [])


def test_tar_corpus_reader(tmp_path):
    """Ohsumed's layout: training/<label>/<file> and test/<label>/<file>, train first."""
    import io
    import tarfile

    d = tmp_path / "text" / "ohsumed"
    d.mkdir(parents=True)
    with tarfile.open(d / "ohsumed-single-23.tar.gz", "w:gz") as tar:
        for name, text in [("test/C02/9", "t one"), ("training/C01/2", "tr two"),
                           ("training/C01/1", "tr one"), ("README", "not a document")]:
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    corpus = load_benchmark("ohsumed", tmp_path, download=False)
    assert corpus.texts == ["tr one", "tr two", "t one"]
    assert corpus.labels == ["C01", "C01", "C02"]
    assert corpus.is_train.tolist() == [True, True, False]


@pytest.mark.realdata
def test_benchmark_documents_are_the_standard_splits(data_dir):
    texts, labels = load_benchmark_texts_and_labels("r8", "train", data_dir)
    test_texts, test_labels = load_benchmark_texts_and_labels("R8", "test", data_dir)
    assert (len(texts), len(test_texts)) == (5485, 2189)  # the paper's Table 1
    assert len(labels) == len(texts) and len(set(labels)) == 8 == len(set(test_labels))
    assert all(isinstance(t, str) for t in texts[:10])
    assert len(load_benchmark_texts_and_labels("r8", "all", data_dir)[0]) == 5485 + 2189


def test_benchmark_documents_refuse_an_unknown_subset_or_name():
    from gfbgcn.core.errors import OptionError

    with pytest.raises(OptionError, match="subset must be one of train, test, all, got 'dev'"):
        load_benchmark_texts_and_labels("r8", "dev")
    with pytest.raises(OptionError, match="unknown text benchmark 'r9'"):
        load_benchmark_texts_and_labels("r9")


def test_benchmark_key_tells_a_benchmark_name_from_a_file(tmp_path, monkeypatch):
    from gfbgcn.text.corpus.benchmarks import benchmark_key

    assert benchmark_key("r8") == "r8" and benchmark_key("R-52") == "r52"
    assert benchmark_key("my.csv") is None and benchmark_key(tmp_path / "x.tsv") is None
    (tmp_path / "r8").write_text("text,label\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert benchmark_key("r8") is None  # an existing file of that name is the user's

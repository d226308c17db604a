"""Text corpora: the four Text GCN benchmarks in their standard raw forms, and users' own files.

A :class:`Corpus` is plain data (texts, string labels, train/test flags); nothing here tokenizes.
Users' CSV/TSV/JSONL files are read by :mod:`gfbgcn.text.corpus.table`.
The benchmark files are read where they lie (archives are read without extracting them);
where a file is missing it is downloaded from its canonical source with a sha256 check, or, when
that is impossible (offline, or no canonical single-file source), a :class:`DatasetUnavailableError`
names the expected files, the directory searched and where to get them.
"""

from __future__ import annotations

import tarfile
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gfbgcn.core.errors import CorpusFormatError, DatasetUnavailableError, OptionError
from gfbgcn.core.io import atomic_write_bytes, sha256_file
from gfbgcn.core.memory import release_free_memory
from gfbgcn.core.paths import data_root
from gfbgcn.core.validate import check_choice
from gfbgcn.text.corpus.corpus import Corpus
from gfbgcn.text.corpus.table import load_table

__all__ = ["Corpus", "CorpusFormatError", "DatasetUnavailableError", "load_benchmark",
           "load_benchmark_texts_and_labels", "load_corpus"]


# ---------------------------------------------------------------------------------------------
# Benchmark registry


@dataclass(frozen=True)
class RemoteFile:
    relpath: str  # relative to the data root
    url: str | None  # canonical single-file source; None if there is none
    sha256: str | None  # checked after download
    how_to_get: str = ""


_CACHOPO = "https://ana.cachopo.org/datasets-for-single-label-text-categorization"
_TEXTGCN = "https://github.com/yao8839836/text_gcn"

BENCHMARK_FILES: dict[str, tuple[RemoteFile, ...]] = {
    "20ng": (
        RemoteFile(
            "text/20ng/20news-bydate.tar.gz",
            "http://qwone.com/~jason/20Newsgroups/20news-bydate.tar.gz",
            None,  # the original archive; repacked copies (same member files) are accepted too
            "Jason Rennie's 20 Newsgroups page (bydate version).",
        ),
    ),
    "r8": tuple(
        RemoteFile(
            f"text/r8/r8-{part}-all-terms.txt",
            f"{_CACHOPO}/r8-{part}-all-terms.txt",
            sha,
            "Ana Cardoso-Cachopo's single-label text categorization datasets (R8, all-terms).",
        )
        for part, sha in (
            ("train", "f2cebcc0203f9092db55fc11b98377a5c30407121b1d633583580e36d0668ed9"),
            ("test", "2cda485b855244b8995a67b81edc691470059225776627d3c45545206f61a1b2"),
        )
    ),
    "r52": tuple(
        RemoteFile(
            f"text/r52/r52-{part}-all-terms.txt",
            f"{_CACHOPO}/r52-{part}-all-terms.txt",
            sha,
            "Ana Cardoso-Cachopo's single-label text categorization datasets (R52, all-terms).",
        )
        for part, sha in (
            ("train", "b7915d75c0a410fec200e78a667615513be6166e3226dcedc2cda2a18ec8d84a"),
            ("test", "ec6ee4ff39c058ce74cf61b5f4007bc04b65c6a32173783ea8726ad9eaf39dbb"),
        )
    ),
    "ohsumed": (
        RemoteFile(
            "text/ohsumed/ohsumed-single-23.tar.gz",
            None,
            None,
            f"Text GCN's single-label 23-class Ohsumed ({_TEXTGCN}, data/ohsumed_single_23/): "
            "pack its training/ and test/ folders as ohsumed-single-23.tar.gz "
            "(top-level dirs training/ and test/).",
        ),
    ),
}

BENCHMARKS: tuple[str, ...] = tuple(BENCHMARK_FILES)
_ALIASES = {"20newsgroups": "20ng", "20news": "20ng", "r-8": "r8", "r-52": "r52"}


def canonical_name(name: str) -> str:
    key = name.lower()
    key = _ALIASES.get(key, key)
    if key not in BENCHMARK_FILES:
        raise OptionError(f"unknown text benchmark {name!r}; choose one of "
                          f"{', '.join(BENCHMARKS)}")
    return key


def _download(remote: RemoteFile, dest: Path, timeout: float = 20.0) -> None:
    assert remote.url is not None
    with urllib.request.urlopen(remote.url, timeout=timeout) as resp:  # noqa: S310 (fixed URLs)
        payload = resp.read()
    atomic_write_bytes(dest, payload)
    if remote.sha256 is not None:
        got = sha256_file(dest)
        if got != remote.sha256:
            dest.unlink(missing_ok=True)
            raise DatasetUnavailableError(
                f"downloaded {remote.url} but its sha256 is {got}, expected {remote.sha256}; "
                "the file was discarded"
            )


def ensure_files(name: str, root: Path, download: bool = True) -> list[Path]:
    """Paths of the raw files of benchmark ``name`` under ``root``, downloading missing ones."""
    paths = []
    missing: list[tuple[RemoteFile, Path, str]] = []
    for remote in BENCHMARK_FILES[name]:
        path = root / remote.relpath
        if not path.is_file() and download and remote.url is not None:
            try:
                _download(remote, path)
            except (urllib.error.URLError, OSError, TimeoutError) as err:
                missing.append((remote, path, f"download failed: {err}"))
                continue
        if not path.is_file():
            reason = "no canonical single-file download" if remote.url is None else "not present"
            missing.append((remote, path, reason))
        paths.append(path)
    if missing:
        lines = [f"dataset {name!r}: required file(s) missing under data root {root}:"]
        for remote, path, reason in missing:
            src = remote.url or "(see below)"
            lines.append(f"  - {path}  [{reason}]\n    source: {src}\n    {remote.how_to_get}")
        lines.append(
            "Put the files there, or point --data-dir / GFBGCN_DATA at a folder that has them."
        )
        raise DatasetUnavailableError("\n".join(lines))
    return paths


# ---------------------------------------------------------------------------------------------
# Readers of the raw benchmark formats


def _read_all_terms(train: Path, test: Path, name: str) -> Corpus:
    texts: list[str] = []
    labels: list[str] = []
    flags: list[bool] = []
    for path, is_train in ((train, True), (test, False)):
        with open(path, encoding="ascii", errors="strict", newline="") as fh:
            for lineno, line in enumerate(fh, 1):
                line = line.rstrip("\r\n")
                if not line.strip():
                    continue
                label, sep, text = line.partition("\t")
                if not sep or not label:
                    raise CorpusFormatError(
                        f"{path}:{lineno}: expected 'label<TAB>text', got {line[:60]!r}"
                    )
                labels.append(label)
                texts.append(text)
                flags.append(is_train)
    return Corpus(name, texts, labels, np.array(flags), sources=[train, test])


def _read_tar_corpus(
    path: Path, name: str, split_dirs: dict[str, bool], encoding: str
) -> Corpus:
    """Archive members ``<split>/<label>/<file>``, in sorted member order, train split first."""
    entries: list[tuple[bool, str, str, str]] = []  # (is_train, label, member, text)
    with tarfile.open(path, "r:*") as tar:
        for member in tar:
            if not member.isfile():
                continue
            parts = member.name.split("/")
            if len(parts) != 3 or parts[0] not in split_dirs:
                continue
            fh = tar.extractfile(member)
            assert fh is not None
            text = fh.read().decode(encoding)
            entries.append((split_dirs[parts[0]], parts[1], member.name, text))
    entries.sort(key=lambda e: (not e[0], e[2]))
    if not entries:
        raise CorpusFormatError(
            f"{path}: no documents found under {sorted(split_dirs)}/<label>/<file>"
        )
    return Corpus(
        name,
        texts=[e[3] for e in entries],
        labels=[e[1] for e in entries],
        is_train=np.array([e[0] for e in entries]),
        sources=[path],
    )


def load_benchmark(name: str, data_dir: str | Path | None = None, download: bool = True) -> Corpus:
    """The :class:`Corpus` of one of ``20ng``, ``r8``, ``r52``, ``ohsumed``, from the data root
    (both splits; :func:`load_benchmark_texts_and_labels` gives one split as two lists)."""
    key = canonical_name(name)
    root = data_root(data_dir)
    paths = ensure_files(key, root, download=download)
    if key in ("r8", "r52"):
        corpus = _read_all_terms(paths[0], paths[1], key)
    elif key == "20ng":
        # Usenet messages are Latin-1 (73 files hold bytes that are invalid UTF-8).
        dirs = {"20news-bydate-train": True, "20news-bydate-test": False}
        corpus = _read_tar_corpus(paths[0], key, dirs, "latin-1")
    else:
        corpus = _read_tar_corpus(paths[0], key, {"training": True, "test": False}, "utf-8")
    corpus.benchmark = key
    return corpus


SUBSETS = ("train", "test", "all")


def load_benchmark_texts_and_labels(
    name: str, subset: str = "train", data_dir: str | Path | None = None, download: bool = True
) -> tuple[list[str], list[str]]:
    """``(texts, labels)`` of a benchmark's standard ``train`` or ``test`` split (or ``all``),
    in file order; the public form is :func:`gfbgcn.load_benchmark_texts_and_labels` (the whole
    :class:`Corpus` is :func:`load_benchmark`'s).  The texts are the raw documents (tokenizing
    is the classifier's work)."""
    check_choice("subset", subset, SUBSETS)
    corpus = load_benchmark(name, data_dir, download)
    keep = np.ones(len(corpus), dtype=bool) if subset == "all" else \
        corpus.is_train == (subset == "train")
    idx = np.flatnonzero(keep)
    return [corpus.texts[i] for i in idx], [corpus.labels[i] for i in idx]


def benchmark_key(name_or_path: str | Path) -> str | None:
    """The benchmark ``name_or_path`` names (its canonical name), or ``None`` for a user's
    corpus file: the one place that tells them apart (an existing file wins over a benchmark
    name)."""
    text = str(name_or_path)
    try:
        key = canonical_name(text)
    except ValueError:
        return None
    return None if Path(text).is_file() else key


def load_corpus(
    name_or_path: str | Path, data_dir: str | Path | None = None, **table_kwargs
) -> Corpus:
    """A benchmark by name, or a user's CSV/TSV/JSONL file by path."""
    key = benchmark_key(name_or_path)
    if key is not None:
        return load_benchmark(key, data_dir)
    corpus = load_table(name_or_path, **table_kwargs)
    release_free_memory()  # the file's lines and records: ~0.5 GiB at 383k documents
    return corpus

"""Clearing and evicting: by kind and age, least recently used first past the cap, never a
write in progress, never outside the root; a reader that loses its entry rebuilds it."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import warnings
from pathlib import Path

from gfbgcn.core import paths
from tests.core.paths.conftest import ENCODER, HOUR, make_file


def test_clear_by_kind_and_age_leaves_the_rest(root: Path, tmp_path: Path) -> None:
    result = paths.clear_cache(["graphs", "embeddings"], older_than="150m")
    assert sorted(e.path.name for e in result.removed) == ["0123abcd.npz", "r8-aaa.npz"]
    assert result.bytes == 1200 and result.failed == []
    assert (root / "graphs" / "texts-bbb.npz").is_file()  # used 2 h ago
    assert (root / "embeddings" / ENCODER / "4567cdef.npz").is_file()
    everything = paths.clear_cache()
    assert len(everything.removed) == 4
    assert sorted(os.listdir(root)) == ["embeddings", "entities", "graphs", "mine", "tu"]
    assert os.listdir(root / "graphs") == [f".texts-ccc.npz.tmp-host-{os.getpid()}.x1"]
    assert os.listdir(root / "embeddings") == []  # the encoder's folder went with its shards
    assert (root / "mine" / "notes.txt").is_file()
    assert (tmp_path / "data" / "aifb.nt").read_bytes() == b"x" * 7777  # the link's target


def test_clear_removes_writes_whose_writer_is_gone(root: Path) -> None:
    host = _host()
    dead = make_file(root / "graphs" / f".r8-ddd.npz.tmp-{host}-{2**22 + 7}.x2", 10)
    live = root / "graphs" / f".texts-ccc.npz.tmp-host-{os.getpid()}.x1"
    paths.clear_cache(["graphs"])
    assert not dead.exists() and live.exists()


def _host() -> str:
    from gfbgcn.core.io import temporary_prefix

    return temporary_prefix(Path("x")).split("-", 1)[1].rsplit("-", 1)[0]


def test_nothing_outside_the_root_is_touched(tmp_path: Path, monkeypatch) -> None:
    """A kind folder that is a link to elsewhere is not the cache's; an entry that is a link
    is removed as a link."""
    root = tmp_path / "cache"
    elsewhere = tmp_path / "elsewhere"
    make_file(elsewhere / "stamp" / "data.pt", 100, age=10 * HOUR)
    root.mkdir()
    (root / "tu").symlink_to(elsewhere)
    make_file(tmp_path / "big.npz", 64, age=10 * HOUR)
    (root / "graphs").mkdir()
    (root / "graphs" / "r8-eee.npz").symlink_to(tmp_path / "big.npz")
    assert [e.path.name for e in paths.cache_entries(root)] == ["r8-eee.npz"]
    assert len(paths.clear_cache(root=root).removed) == 1
    assert not (root / "graphs" / "r8-eee.npz").is_symlink()
    assert (tmp_path / "big.npz").is_file() and (elsewhere / "stamp" / "data.pt").is_file()
    entry = paths.CacheEntry("graphs", tmp_path / "big.npz", 64, 0.0)
    assert not paths.remove_entry(root, entry)  # outside the root: refused
    assert (tmp_path / "big.npz").is_file()


def test_eviction_removes_the_least_recently_used_graphs_and_shards(root, monkeypatch):
    """Cap 1.5 KiB over 2.2 KiB: the oldest graph (5 h) goes first, then the 3 h shard; the
    9 h PyG folder is never evicted, nor what was used in the last 10 minutes."""
    monkeypatch.setenv(paths.CACHE_MAX_ENV, "1500")
    removed = paths.evict_over_cap()
    assert [e.path.name for e in removed] == ["r8-aaa.npz"]
    monkeypatch.setenv(paths.CACHE_MAX_ENV, "700")
    removed = paths.evict_over_cap()
    assert [e.path.name for e in removed] == ["0123abcd.npz", "texts-bbb.npz"]
    monkeypatch.setenv(paths.CACHE_MAX_ENV, "100")  # what is left: in its grace, or other
    assert paths.evict_over_cap() == []
    left = {e.path.name for e in paths.cache_entries()}
    assert left == {"4567cdef.npz", "0c2195d497e083cf", "aifb"}
    assert (root / "graphs" / f".texts-ccc.npz.tmp-host-{os.getpid()}.x1").exists()


def test_eviction_never_removes_the_entry_kept_nor_with_no_cap(root, monkeypatch):
    monkeypatch.setenv(paths.CACHE_MAX_ENV, "none")
    assert paths.evict_over_cap() == []
    monkeypatch.setenv(paths.CACHE_MAX_ENV, "1")
    kept = root / "graphs" / "r8-aaa.npz"
    removed = paths.evict_over_cap(keep=kept)
    assert kept.is_file() and {e.path.name for e in removed} == {"texts-bbb.npz",
                                                                   "0123abcd.npz"}


def test_writing_a_cache_entry_trims_the_cache(root, monkeypatch) -> None:
    """``write_to_cache`` (every graph and shard write) applies the cap, keeping what it
    wrote; a bad cap is warned about once and the write stands."""
    monkeypatch.setenv(paths.CACHE_MAX_ENV, "2K")
    new = root / "graphs" / "new-fff.npz"
    assert paths.write_to_cache(lambda: new.write_bytes(b"y" * 900), new)
    assert new.is_file() and not (root / "graphs" / "r8-aaa.npz").exists()
    monkeypatch.setenv(paths.CACHE_MAX_ENV, "much")
    other = root / "graphs" / "new-ggg.npz"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(2):
            assert paths.write_to_cache(lambda: other.write_bytes(b"z"), other)
    messages = [str(w.message) for w in caught if issubclass(w.category, paths.CacheWarning)]
    assert len(messages) == 1 and "GFBGCN_CACHE_MAX" in messages[0]


RACE_CHILD = """
import sys, warnings
import numpy as np
warnings.filterwarnings("error", message="ignoring")  # a corrupt-cache warning fails the run
from gfbgcn.text.corpus.corpus import Corpus
from gfbgcn.text.graph.text_graph import GraphConfig, build_text_graph
from gfbgcn.text.tokenize.clean import whitespace_tokenize
texts = [" ".join(f"w{(i * 7 + j) % 50}" for j in range(30)) for i in range(200)]
corpus = Corpus("race", texts, ["a", "b"] * 100, np.arange(200) < 150)
config = GraphConfig(window=5, min_freq=1, stop_words=None)
first = build_text_graph(corpus, config, whitespace_tokenize, workers=1)
for _ in range(int(sys.argv[1])):
    graph = build_text_graph(corpus, config, whitespace_tokenize, workers=1)
    assert graph.key == first.key
    assert np.array_equal(np.asarray(graph.edge_weight), np.asarray(first.edge_weight))
print("ok")
"""


def test_a_reader_survives_its_entries_being_cleared_meanwhile(tmp_path, monkeypatch):
    """One process reads (or rebuilds) a graph again and again while this one clears the
    cache as fast as it can: every read gives the same graph, none is taken for corrupt."""
    monkeypatch.setenv(paths.CACHE_ENV, str(tmp_path / "cache"))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    child = subprocess.Popen([sys.executable, "-c", RACE_CHILD, "6"], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    cleared = 0
    while child.poll() is None:
        cleared += len(paths.clear_cache(["graphs"]).removed)
        time.sleep(0.01)  # (two cores: leave the reader some)
    out, err = child.communicate()
    assert child.returncode == 0 and out.strip() == "ok", err[-2000:]
    assert cleared > 0  # the race did happen

"""The graph cache's file: the sliced writer gives what np.savez gives; members mapped from the
file equal what np.load reads; the graph cache maps its edge arrays (CRC still checked), and a
graph can drop its edge arrays back to the file."""

from __future__ import annotations

import io
import zipfile

import numpy as np
import pytest
import torch

from gfbgcn.text.corpus.corpus import Corpus
from gfbgcn.text.graph import cache
from gfbgcn.text.graph.adjacency import graph_adjacency
from gfbgcn.text.graph.cache import ALIGN, map_edges, map_member, savez_converted
from gfbgcn.text.graph.text_graph import GraphConfig, build_text_graph
from gfbgcn.text.tokenize.clean import whitespace_tokenize
from tests.text.toydata import toy_corpus


def test_sliced_conversion_reads_back_like_savez(monkeypatch):
    monkeypatch.setattr(cache, "SLICE", 7)  # many slices, a partial last one
    edge_index = np.arange(2 * 25, dtype=np.int64).reshape(2, 25) * 3
    weights = np.linspace(0, 1, 25, dtype=np.float32)
    buffer = io.BytesIO()
    savez_converted(buffer, {"edge_index": (edge_index, np.int32)}, weight=weights,
                    names=np.array(["a", "bcd"]), meta=np.array('{"k": 1}'))
    buffer.seek(0)
    with np.load(buffer, allow_pickle=False) as z:
        assert sorted(z.files) == ["edge_index", "meta", "names", "weight"]
        assert z["edge_index"].dtype == np.int32
        np.testing.assert_array_equal(z["edge_index"], edge_index)
        np.testing.assert_array_equal(z["weight"], weights)
        assert list(z["names"]) == ["a", "bcd"] and str(z["meta"]) == '{"k": 1}'


def test_aligned_members_map_in_place_and_equal_np_load(tmp_path):
    path = tmp_path / "a.npz"
    edge_index = np.arange(2 * 37, dtype=np.int64).reshape(2, 37)
    weight = np.linspace(0, 1, 37, dtype=np.float32)
    with open(path, "wb") as fh:
        savez_converted(fh, {"edge_index": (edge_index, np.int32)}, aligned=("edge_weight",),
                        names=np.array(["ab", "c"]), edge_weight=weight, other=weight)
    mapped_index, mapped_weight = map_edges(path)
    assert isinstance(mapped_index, np.memmap) and mapped_index.dtype == np.int32
    np.testing.assert_array_equal(mapped_index, edge_index)
    np.testing.assert_array_equal(mapped_weight, weight)
    assert mapped_weight.offset % ALIGN == 0 and mapped_index.offset % ALIGN == 0
    mapped_weight[0] = 5.0  # copy-on-write: private to the process, the file is unchanged
    with np.load(path) as z:
        assert z["edge_weight"][0] == 0.0 and list(z["names"]) == ["ab", "c"]
    assert map_member(path, "names") is None  # not a numeric array
    assert map_member(path, "absent") is None


def test_unaligned_or_compressed_members_are_not_mapped(tmp_path):
    path = tmp_path / "c.npz"
    np.savez_compressed(path, edge_index=np.ones((2, 5), np.int32))
    assert map_member(path, "edge_index") is None
    path = tmp_path / "u.npz"
    with zipfile.ZipFile(path, "w") as zf:  # a 1-byte member first: the next one is unaligned
        with zf.open("x.npy", "w") as out:
            np.lib.format.write_array(out, np.zeros(1, np.int8))
        with zf.open("edge_weight.npy", "w") as out:
            np.lib.format.write_array(out, np.ones(4, np.float32))
    assert map_member(path, "edge_weight") is None  # read the ordinary way instead


def _corpus() -> Corpus:
    return toy_corpus(n=40, vocab=25, seed=3)


def test_cached_graph_maps_its_edges_and_gives_the_same_adjacency(tmp_path):
    cfg = GraphConfig(window=3, min_freq=1, stop_words=None)
    built = build_text_graph(_corpus(), cfg, whitespace_tokenize, cache_root=tmp_path)
    loaded = build_text_graph(_corpus(), cfg, whitespace_tokenize, cache_root=tmp_path)
    assert loaded.from_cache and loaded.cache_path == built.cache_path != ""
    assert isinstance(loaded.edge_index, np.memmap) and loaded.edge_index.dtype == np.int32
    assert isinstance(loaded.edge_weight, np.memmap)
    np.testing.assert_array_equal(loaded.edge_index, built.edge_index)
    data = loaded.to_data()
    assert data.edge_index.dtype == torch.int64  # PyG's convention
    assert "edge_index" not in loaded.to_data(edges=False)
    a, b = graph_adjacency(built), graph_adjacency(loaded)
    for x, y in ((a.crow_indices(), b.crow_indices()), (a.col_indices(), b.col_indices()),
                 (a.values(), b.values())):
        assert torch.equal(x, y)
    assert built.release_edges() and isinstance(built.edge_index, np.memmap)
    np.testing.assert_array_equal(built.edge_index, loaded.edge_index)


def test_release_without_a_cache_file_keeps_the_arrays():
    graph = build_text_graph(_corpus(), GraphConfig(window=3, min_freq=1, stop_words=None),
                             whitespace_tokenize, cache=False)
    before = graph.edge_index
    assert not graph.release_edges() and graph.edge_index is before


def test_a_damaged_mapped_member_is_refused(tmp_path):
    cfg = GraphConfig(window=3, min_freq=1, stop_words=None)
    built = build_text_graph(_corpus(), cfg, whitespace_tokenize, cache_root=tmp_path)
    index = map_member(built.cache_path, "edge_index")
    data = bytearray(open(built.cache_path, "rb").read())
    data[index.offset + 5] ^= 0x10  # inside the edge_index data, which np.load never reads
    del index
    open(built.cache_path, "wb").write(bytes(data))
    with pytest.warns(UserWarning, match="ignoring corrupt graph cache"):
        again = build_text_graph(_corpus(), cfg, whitespace_tokenize, cache_root=tmp_path)
    assert not again.from_cache
    np.testing.assert_array_equal(again.edge_index, built.edge_index)


# ---- the cache shared with other processes: last use, entries removed meanwhile --------------


def test_a_cache_hit_marks_the_file_used(tmp_path):
    """Reading a cached graph sets its modification time: the size cap evicts the least
    recently *used* graphs (gfbgcn.core.paths)."""
    import os

    cfg = GraphConfig(window=3, min_freq=1, stop_words=None)
    built = build_text_graph(_corpus(), cfg, whitespace_tokenize, cache_root=tmp_path)
    os.utime(built.cache_path, (1e9, 1e9))  # 2001
    loaded = build_text_graph(_corpus(), cfg, whitespace_tokenize, cache_root=tmp_path)
    assert loaded.from_cache and os.stat(built.cache_path).st_mtime > 1e9 + 1


def test_a_file_removed_before_it_is_read_is_a_miss_not_a_corrupt_cache(tmp_path,
                                                                         monkeypatch):
    """Evicted or cleared by another process between the lookup and the read: rebuilt and
    written again, with no warning about a corrupt cache."""
    import warnings
    from pathlib import Path

    from gfbgcn.text.graph import text_graph

    cfg = GraphConfig(window=3, min_freq=1, stop_words=None)
    first = build_text_graph(_corpus(), cfg, whitespace_tokenize, cache_root=tmp_path)
    real_check = text_graph.check_seal

    def removed_meanwhile(path, key):
        Path(path).unlink()  # another process's eviction, just now
        return real_check(path, key)

    monkeypatch.setattr(text_graph, "check_seal", removed_meanwhile)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        again = build_text_graph(_corpus(), cfg, whitespace_tokenize, cache_root=tmp_path)
    assert not again.from_cache and again.key == first.key
    assert Path(first.cache_path).is_file()
    np.testing.assert_array_equal(np.asarray(again.edge_weight), np.asarray(first.edge_weight))


def test_a_loaded_graph_keeps_its_arrays_when_its_file_is_removed(tmp_path):
    """A graph read from the cache maps its edge arrays; the file removed meanwhile (evicted,
    cleared) leaves them readable, and dropping them back to the file is just skipped."""
    from pathlib import Path

    cfg = GraphConfig(window=3, min_freq=1, stop_words=None)
    build_text_graph(_corpus(), cfg, whitespace_tokenize, cache_root=tmp_path)
    loaded = build_text_graph(_corpus(), cfg, whitespace_tokenize, cache_root=tmp_path)
    expected = np.array(loaded.edge_index), np.array(loaded.edge_weight)
    Path(loaded.cache_path).unlink()
    assert not loaded.release_edges()
    np.testing.assert_array_equal(np.asarray(loaded.edge_index), expected[0])
    np.testing.assert_array_equal(np.asarray(loaded.edge_weight), expected[1])
    assert loaded.to_pyg().edge_index.shape == expected[0].shape

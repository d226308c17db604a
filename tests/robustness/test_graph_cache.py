"""E. The graph cache is checked for its content, not only its zip checksums: a file rewritten
with valid arrays, another corpus's graph copied under this corpus's name, or metadata that
disagree with the arrays are each a warning naming the file and a rebuild, never trained on."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from gfbgcn.text.graph.cache import SEAL, seal
from tests.robustness.conftest import FAST, documents, write_csv


def _build(cli, corpus: Path):
    return cli("data", "build", "--dataset", corpus, "--min-freq", "1", "--window", "3")


@pytest.fixture()
def cached(cli, corpus, tmp_path, monkeypatch) -> Path:
    """The cache file of ``corpus``, just built."""
    monkeypatch.setenv("GFBGCN_CACHE", str(tmp_path / "cache"))
    assert "cached (key" in _build(cli, corpus).out
    (path,) = (tmp_path / "cache").rglob("*.npz")
    return path


def _arrays(path: Path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as z:
        return {name: z[name] for name in z.files}


def _rewrite(path: Path, arrays: dict[str, np.ndarray]) -> None:
    with open(path, "wb") as fh:
        np.savez(fh, **arrays)


def _assert_rebuilt(cli, corpus: Path, cache: Path, problem: str) -> None:
    result = _build(cli, corpus)
    assert result.status == 0, result.err
    assert f"warning: ignoring graph cache {cache}: {problem}" in result.err \
        or f"warning: ignoring corrupt graph cache {cache} ({problem}" in result.err, result.err
    assert "graph built" in result.out
    again = _build(cli, corpus)
    assert "already cached" in again.out and "warning" not in again.err, again.err


def test_labels_rewritten_without_the_seal_are_not_trained_on(cli, corpus, cached):
    arrays = _arrays(cached)
    arrays.pop(SEAL[: -len(".npy")])
    arrays["labels"] = np.zeros_like(arrays["labels"])  # valid data: every label class 0
    _rewrite(cached, arrays)
    result = cli("train", "--dataset", corpus, *FAST[:-1])  # FAST without --no-cache
    assert result.status == 0, result.err
    assert f"warning: ignoring graph cache {cached}: it has no content digest" in result.err
    assert _arrays(cached)["labels"].any(), "the rebuilt cache holds the true labels again"


def test_labels_rewritten_under_the_old_seal_are_caught(cli, corpus, cached):
    arrays = _arrays(cached)  # the seal member is kept as it was
    arrays["labels"] = np.zeros_like(arrays["labels"])
    _rewrite(cached, arrays)
    _assert_rebuilt(cli, corpus, cached, "its arrays differ from those it was written with")


def test_another_corpus_graph_copied_under_this_name_is_rebuilt(cli, corpus, cached,
                                                                tmp_path):
    other = write_csv(tmp_path / "other.csv",
                      [(f"{text} extra", label, split) for text, label, split in documents()])
    assert "cached (key" in _build(cli, other).out
    (other_cache,) = [p for p in cached.parent.rglob("*.npz") if p != cached]
    shutil.copyfile(other_cache, cached)
    _assert_rebuilt(cli, corpus, cached, "it was built for key")


@pytest.mark.parametrize(("field", "value"), [
    ("num_docs", 25),
    ("label_names", ["food"]),
    ("num_doc_word", 1),
    ("label_names", "food"),
])
def test_metadata_that_disagree_with_the_arrays_are_rebuilt(cli, corpus, cached, field, value):
    arrays = _arrays(cached)
    key = json.loads(str(arrays.pop(SEAL[: -len(".npy")])))["key"]
    meta = json.loads(str(arrays["meta"]))
    meta[field] = value
    arrays["meta"] = np.array(json.dumps(meta))
    _rewrite(cached, arrays)
    seal(cached, key)  # re-sealed, as a tamperer who knows the format would: only the
    # consistency checks of the load can catch it
    _assert_rebuilt(cli, corpus, cached, "ValueError")


def test_a_sealed_cache_is_used_without_a_warning(cli, corpus, cached):
    again = _build(cli, corpus)
    assert "already cached" in again.out and "warning" not in again.err


def _resealed(cached: Path, change) -> None:
    """``cached`` with ``change(arrays, meta)`` applied, its seal written again (as a tamperer
    or another program that knows the format would)."""
    arrays = _arrays(cached)
    key = json.loads(str(arrays.pop(SEAL[: -len(".npy")])))["key"]
    meta = json.loads(str(arrays["meta"]))
    change(arrays, meta)
    arrays["meta"] = np.array(json.dumps(meta))
    _rewrite(cached, arrays)
    seal(cached, key)


def _past_the_nodes(arrays, meta) -> None:
    arrays["edge_index"] = arrays["edge_index"].copy()
    arrays["edge_index"][0, 0] = 100_046  # beyond the node count


def _nan_weight(arrays, meta) -> None:
    arrays["edge_weight"] = arrays["edge_weight"].copy()
    arrays["edge_weight"][3] = np.nan


@pytest.mark.parametrize(("change", "problem"), [
    (_past_the_nodes, "node ids outside"),
    (lambda a, m: a.update(edge_index=a["edge_index"].astype(np.float64)),
     "edge_index has dtype float64"),
    (_nan_weight, "non-finite values"),
    (lambda a, m: a.update(edge_weight=-a["edge_weight"]), "negative weights"),
    (lambda a, m: m.update(notes=5), "metadata field notes"),
    (lambda a, m: m.update(num_windows="many"), "metadata field num_windows"),
    (lambda a, m: m["config"].update(window=[3]), "metadata field config.window"),
    (lambda a, m: m["config"].pop("cooccurrence"), "metadata field config"),
])
def test_a_resealed_cache_with_content_no_build_writes_is_rebuilt(cli, corpus, cached, change,
                                                                  problem):
    _resealed(cached, change)
    result = _build(cli, corpus)
    assert result.status == 0 and "internal error" not in result.err, result.err
    assert f"ignoring corrupt graph cache {cached}" in result.err and problem in result.err, \
        result.err
    assert "graph built" in result.out
    trained = cli("train", "--dataset", corpus, *FAST[:-1])  # the rebuilt cache trains
    assert trained.status == 0 and "warning" not in trained.err, trained.err

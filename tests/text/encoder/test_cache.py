"""The embedding cache: reuse, partial reuse, invalidation by the model files, shards that are
corrupt or re-sealed with bad content, a cache that cannot be written, killed writes."""

from __future__ import annotations

import json
import os
import time
import warnings
from pathlib import Path

import numpy as np
import pytest

from gfbgcn.core.io import STALE_SECONDS
from gfbgcn.core.paths import CacheWarning
from gfbgcn.text.encoder import (
    EmbeddingCache,
    EmbeddingCacheWarning,
    SentenceEncoder,
    embed_documents,
    load_encoder,
    text_digests,
)
from gfbgcn.text.encoder.cache import shard_digest
from tests.text.encoder.tinybert import write_plain

TEXTS = ["the market said oil price", "good film", "", "a bad year for trade!", "good film"]
NEW = ["news of the year", "the film was bad", "news of the year"]


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test its own cache root (the session's is shared by every test)."""
    root = tmp_path / "cache"
    monkeypatch.setenv("GFBGCN_CACHE", str(root))
    return root


def _count_windows(encoder: SentenceEncoder) -> list[int]:
    """The number of windows of each forward pass from now on."""
    seen: list[int] = []
    encoder.model.register_forward_hook(
        lambda module, args, kwargs, out: seen.append(kwargs["input_ids"].shape[0]),
        with_kwargs=True)
    return seen


def _shards(encoder: SentenceEncoder) -> list[Path]:
    return EmbeddingCache(encoder.identity).shards()


def test_a_second_call_runs_the_model_on_nothing(plain_dir: Path) -> None:
    encoder = load_encoder(plain_dir)
    windows = _count_windows(encoder)
    first = embed_documents(encoder, TEXTS)
    assert sum(windows) == 4  # "good film" twice: embedded once
    np.testing.assert_array_equal(first, encoder.embed(TEXTS))
    windows.clear()
    again = embed_documents(load_encoder(plain_dir), TEXTS)  # a fresh load: same identity
    second = embed_documents(encoder, TEXTS)
    assert windows == [] and len(_shards(encoder)) == 1
    np.testing.assert_array_equal(again, first)
    np.testing.assert_array_equal(second, first)


def test_a_cache_hit_marks_the_shard_used(plain_dir: Path) -> None:
    """Reading a shard sets its modification time: the cache's size cap evicts the least
    recently used shards (gfbgcn.core.paths)."""
    encoder = load_encoder(plain_dir)
    embed_documents(encoder, TEXTS)
    (shard,) = _shards(encoder)
    os.utime(shard, (1e9, 1e9))
    embed_documents(encoder, TEXTS[:2])
    assert shard.stat().st_mtime > 1e9 + 1


def test_only_new_texts_are_embedded(plain_dir: Path) -> None:
    encoder = load_encoder(plain_dir)
    embed_documents(encoder, TEXTS)
    windows = _count_windows(encoder)
    mixed = [TEXTS[1], NEW[0], TEXTS[0], NEW[1], NEW[2]]
    rows = embed_documents(encoder, mixed)
    assert sum(windows) == 2 and len(_shards(encoder)) == 2
    np.testing.assert_allclose(rows, encoder.embed(mixed), atol=1e-6)
    windows.clear()
    embed_documents(encoder, NEW + TEXTS)  # all from two shards
    assert windows == []


def test_no_cache_writes_nothing(plain_dir: Path, _own_cache: Path) -> None:
    encoder = load_encoder(plain_dir)
    windows = _count_windows(encoder)
    embed_documents(encoder, TEXTS, cache=False)
    embed_documents(encoder, TEXTS, cache=False)
    assert sum(windows) == 8 and not _own_cache.exists()


def test_a_given_root_holds_the_shards(plain_dir: Path, tmp_path: Path,
                                       _own_cache: Path) -> None:
    encoder = load_encoder(plain_dir)
    cache = EmbeddingCache(encoder.identity, tmp_path / "elsewhere")
    embed_documents(encoder, TEXTS, cache=cache)
    assert len(cache.shards()) == 1 and not _own_cache.exists()
    record = json.loads((cache.folder / "identity.json").read_text())
    assert record["digest"] == encoder.identity.digest and "name" not in record


def test_rewritten_weights_change_the_identity_and_miss_the_cache(plain_dir: Path,
                                                                   copy_of) -> None:
    folder = copy_of(plain_dir)
    before = load_encoder(folder)
    rows = embed_documents(before, TEXTS)
    write_plain(folder, seed=1)  # the same architecture, other weights
    after = load_encoder(folder)
    assert after.identity.digest != before.identity.digest
    assert after.identity.key() != before.identity.key()
    windows = _count_windows(after)
    changed = embed_documents(after, TEXTS)
    assert sum(windows) == 4 and not np.allclose(changed, rows)


def _rewrite_shard(path: Path, encoder: SentenceEncoder, *, digests=None, rows=None,
                   key=None, count=None) -> Path:
    """Rewrite a shard with other content, sealed as the cache seals (a deliberate edit):
    only the content checks can tell."""
    with np.load(path) as z:
        digests = z["digests"] if digests is None else digests
        rows = z["rows"] if rows is None else rows
    key = encoder.identity.key() if key is None else key
    digest = shard_digest(key, digests, rows)
    seal = json.dumps({"format": 1, "key": key, "sha256": digest,
                       "rows": len(digests) if count is None else count})
    path.unlink()
    new = path.with_name(f"{digest[:32]}.npz")
    np.savez(new, digests=digests, rows=rows, seal=np.array(seal))
    return new


def _bad_content(case: str, path: Path, encoder: SentenceEncoder) -> Path:
    with np.load(path) as z:
        rows = z["rows"]
    if case == "garbage bytes":
        path.write_bytes(b"not a zip file")
        return path
    if case == "truncated":
        path.write_bytes(path.read_bytes()[:200])
        return path
    if case == "changed without a new seal":
        with np.load(path) as z:
            members = {name: z[name] for name in z.files}
        members["rows"] = members["rows"] * 0.5
        np.savez(path, **members)
        return path
    edits = {"NaN rows": {"rows": np.full_like(rows, np.nan)},
             "rows not of unit length": {"rows": rows * 2},
             "rows of another width": {"rows": np.ones((len(rows), 16), np.float32) / 4},
             "float64 rows": {"rows": rows.astype(np.float64)},
             "a seal with another row count": {"count": len(rows) + 1},
             "another encoder's key": {"key": "0" * 32}}
    return _rewrite_shard(path, encoder, **edits[case])


@pytest.mark.parametrize("case", [
    "garbage bytes", "truncated", "changed without a new seal", "NaN rows",
    "rows not of unit length", "rows of another width", "float64 rows",
    "a seal with another row count", "another encoder's key"])
def test_a_bad_shard_is_warned_about_ignored_and_rebuilt(plain_dir: Path, case: str) -> None:
    encoder = load_encoder(plain_dir)
    good = embed_documents(encoder, TEXTS)
    (shard,) = _shards(encoder)
    _bad_content(case, shard, encoder)
    windows = _count_windows(encoder)
    with pytest.warns(EmbeddingCacheWarning, match="ignoring embedding cache shard") as caught:
        rows = embed_documents(encoder, TEXTS)
    assert len(caught) == 1 and "\n" not in str(caught[0].message)
    assert sum(windows) == 4
    np.testing.assert_array_equal(rows, good)
    # deleted, and rebuilt (under the same name, where the bad one had kept the good name)
    assert _shards(encoder) == [shard]
    windows.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        embed_documents(encoder, TEXTS)
    assert windows == []


def test_an_unwritable_cache_still_gives_the_embeddings(plain_dir: Path, _own_cache: Path
                                                        ) -> None:
    _own_cache.write_text("a file where the cache directory should be")
    encoder = load_encoder(plain_dir)
    with pytest.warns(CacheWarning, match="cannot write the cache"):
        rows = embed_documents(encoder, TEXTS)
    np.testing.assert_array_equal(rows, encoder.embed(TEXTS))
    windows = _count_windows(encoder)
    embed_documents(encoder, TEXTS)  # nothing cached: embedded again (warned once)
    assert sum(windows) == 4


def test_temporary_files_are_never_read_and_stale_ones_are_removed(plain_dir: Path) -> None:
    encoder = load_encoder(plain_dir)
    embed_documents(encoder, TEXTS[:1])
    folder = EmbeddingCache(encoder.identity).folder
    stale = folder / ".abc.npz.tmp-otherhost-1.x1"  # a killed write on another machine
    fresh = folder / ".def.npz.tmp-otherhost-2.x2"  # maybe still being written there
    for tmp in (stale, fresh):
        tmp.write_bytes(b"half a shard")
    old = time.time() - STALE_SECONDS - 60
    os.utime(stale, (old, old))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        embed_documents(encoder, TEXTS)  # reads the shard, writes another
    assert not stale.exists() and fresh.exists()
    assert len(_shards(encoder)) == 2


def test_text_digests_are_sha256_of_the_utf8_bytes() -> None:
    import hashlib

    digests = text_digests(["", "é", "\ud800"])
    assert digests.shape == (3, 32) and digests.dtype == np.uint8
    assert digests[1].tobytes() == hashlib.sha256("é".encode()).digest()
    assert len({d.tobytes() for d in digests}) == 3

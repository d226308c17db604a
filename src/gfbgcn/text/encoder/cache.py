"""A content-addressed store of document embeddings on disk, checked on every read.

Layout, under ``cache_dir("embeddings")`` (``$GFBGCN_CACHE/embeddings``) or a given root::

    <root>/<identity key>/identity.json        what the key digests (for people; not trusted)
    <root>/<identity key>/<content digest>.npz  one shard: texts' sha256 and their vectors
    <root>/<identity key>/.<name>.tmp-HOST-PID.XXXX  a write in progress (or killed): never read

One folder per :meth:`~gfbgcn.text.encoder.identity.EncoderIdentity.key`: another model file,
pooling or budget is another folder, so vectors of one encoder are never served for another.
A shard (``np.savez``, uncompressed) holds ``digests`` ``[n, 32]`` uint8 (the sha256 of each
text's UTF-8 bytes), ``rows`` ``[n, dim]`` float32 and ``seal``: a JSON record of the format,
the identity key, the row count and the sha256 of all of them and both arrays' bytes.  The file
is named by that digest and written under a temporary name, then renamed into place, so a
reader sees a whole shard or none.

Reading a shard marks it used (:func:`gfbgcn.core.paths.touch`), and every write trims the cache
to its size cap, least recently used first (:func:`gfbgcn.core.paths.evict_over_cap`).

A shard is used only when it passes every check (:func:`check_shard`): the members expected and
no others, the seal's format and key, the digest recomputed from the bytes and equal to the
name, the shapes and dtypes, the row count, finite values, the identity's width and, where the
encoder normalises, unit rows.  Otherwise it is warned about once, deleted where it can be,
and its documents are embedded again: a cache is never trusted over the model.  A cache that
cannot be written costs a re-embedding next time, not the command
(:func:`gfbgcn.core.paths.write_to_cache`).
"""

from __future__ import annotations

import hashlib
import json
import os
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from gfbgcn.core.io import atomic_write, atomic_write_json, remove_abandoned
from gfbgcn.core.paths import cache_dir, touch, write_to_cache
from gfbgcn.text.encoder.identity import EncoderIdentity

__all__ = ["DIGEST_BYTES", "EmbeddingCache", "EmbeddingCacheWarning", "check_shard"]

SHARD_FORMAT = 1
DIGEST_BYTES = 32
_MEMBERS = {"digests", "rows", "seal"}
#: Rows of a normalising encoder must have unit length within this (float32 rounding is 1e-7).
_NORM_TOLERANCE = 1e-3
_WARNED: set[str] = set()  # shards already warned about in this process


class EmbeddingCacheWarning(UserWarning):
    """A cached shard failed its checks; its documents are embedded again."""


def _keys(digests: np.ndarray) -> np.ndarray:
    """``[n, 32]`` uint8 digests as ``[n]`` 32-byte strings (comparable, sortable)."""
    return np.ascontiguousarray(digests, dtype=np.uint8).view(f"S{DIGEST_BYTES}").ravel()


def shard_digest(key: str, digests: np.ndarray, rows: np.ndarray) -> str:
    """sha256 of a shard's format, key, shapes and both arrays' bytes."""
    head = json.dumps({"format": SHARD_FORMAT, "key": key, "digests": list(digests.shape),
                       "rows": list(rows.shape)}, sort_keys=True)
    h = hashlib.sha256(head.encode("utf-8"))
    h.update(np.ascontiguousarray(digests).tobytes())
    h.update(np.ascontiguousarray(rows).tobytes())
    return h.hexdigest()


def _check_arrays(digests: np.ndarray, rows: np.ndarray, count: Any,
                  identity: EncoderIdentity) -> str | None:
    if digests.dtype != np.uint8 or digests.ndim != 2 or digests.shape[1] != DIGEST_BYTES:
        return f"digests of shape {digests.shape} and dtype {digests.dtype}"
    if rows.dtype != np.float32 or rows.shape != (digests.shape[0], identity.dim):
        return (f"rows of shape {rows.shape} and dtype {rows.dtype}, expected "
                f"({digests.shape[0]}, {identity.dim}) float32")
    if count != digests.shape[0]:
        return f"{digests.shape[0]} rows, its seal says {count!r}"
    if not np.isfinite(rows).all():
        return "rows that are not finite"
    if identity.normalize and rows.size:
        norms = np.linalg.norm(rows, axis=1)
        if np.abs(norms - 1).max() > _NORM_TOLERANCE:
            return "rows that are not of unit length"
    return None


def check_shard(path: Path, z: Any, identity: EncoderIdentity) -> tuple[np.ndarray, np.ndarray]:
    """The ``(digests, rows)`` of the open shard ``z`` (an ``np.load`` of ``path``) when it
    passes every check; ``ValueError`` naming the first it fails."""
    if set(z.files) != _MEMBERS:
        raise ValueError(f"members {sorted(z.files)}, expected {sorted(_MEMBERS)}")
    seal = json.loads(str(z["seal"]))
    if not isinstance(seal, dict) or seal.get("format") != SHARD_FORMAT:
        raise ValueError("its seal is not a shard seal of this format")
    if seal.get("key") != identity.key():
        raise ValueError(f"it was written for encoder key {seal.get('key')!r}")
    digests, rows = z["digests"], z["rows"]
    problem = _check_arrays(digests, rows, seal.get("rows"), identity)
    if problem:
        raise ValueError(problem)
    digest = shard_digest(identity.key(), digests, rows)
    if seal.get("sha256") != digest or path.stem != digest[:32]:
        raise ValueError("its contents differ from those it was written with")
    return digests, rows


class EmbeddingCache:
    """The cached embeddings of one encoder (see the module docstring).

    Args:
        identity: the encoder the vectors come from.
        root: the cache root (default: ``cache_dir("embeddings")``, not created until a write).
    """

    def __init__(self, identity: EncoderIdentity, root: str | os.PathLike[str] | None = None
                 ) -> None:
        self.identity = identity
        self.root = Path(root) if root is not None else cache_dir("embeddings", create=False)
        self.folder = self.root / identity.key()

    def shards(self) -> list[Path]:
        """The shard files (not temporaries), oldest name first; none where the folder is
        missing or unreadable."""
        try:
            return sorted(p for p in self.folder.glob("*.npz") if not p.name.startswith("."))
        except OSError:
            return []

    def lookup(self, digests: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The cached rows of the texts whose sha256 are ``digests`` ``[n, 32]`` uint8.

        Returns ``(rows, found)``: ``[n, dim]`` float32 (zeros where not found) and ``[n]``
        bool.  A shard is read in full and checked only when it holds a wanted text.
        """
        wanted = _keys(digests)
        rows = np.zeros((len(wanted), self.identity.dim), dtype=np.float32)
        found = np.zeros(len(wanted), dtype=bool)
        for path in self.shards():
            todo = np.flatnonzero(~found)
            if not todo.size:
                break
            try:
                # the file opened here: np.load leaves its own handle open on a bad zip
                with open(path, "rb") as fh, np.load(fh, allow_pickle=False) as z:
                    have = _keys(z["digests"])  # cheap: one member, checked below if used
                    order = np.argsort(have, kind="stable")
                    pos = np.minimum(np.searchsorted(have, wanted[todo], sorter=order),
                                     max(len(have) - 1, 0))
                    hit = (have[order[pos]] == wanted[todo] if len(have)
                           else np.zeros(len(todo), dtype=bool))
                    if hit.any():
                        _, cached = check_shard(path, z, self.identity)
                        rows[todo[hit]] = cached[order[pos[hit]]]
                        found[todo[hit]] = True
                        touch(path)  # used now: the cache's size cap evicts the least used
            except FileNotFoundError:  # removed by another process since it was listed
                continue
            except Exception as err:  # noqa: BLE001 - truncated zip, bad member, failed check
                self._reject(path, err)
        return rows, found

    def _reject(self, path: Path, err: Exception) -> None:
        """Warn (once a shard per process) that ``path`` is not used, and delete it."""
        if str(path) not in _WARNED:
            _WARNED.add(str(path))
            reason = str(err) if isinstance(err, ValueError) else f"{type(err).__name__}: {err}"
            warnings.warn(EmbeddingCacheWarning(
                f"ignoring embedding cache shard {path} ({reason}); its documents are "
                "embedded again"), stacklevel=3)
        try:
            path.unlink()
        except OSError:
            pass

    def store(self, digests: np.ndarray, rows: np.ndarray) -> bool:
        """Write the rows ``[n, dim]`` float32 of the texts whose sha256 are ``digests`` ``[n,
        32]`` uint8 as one new shard; ``False`` when the cache cannot be written (warned once
        per folder, :func:`~gfbgcn.core.paths.write_to_cache`) or the rows would fail the
        checks of a read (not finite, say: they would only be rejected next time)."""
        digests = np.ascontiguousarray(digests, dtype=np.uint8)
        rows = np.ascontiguousarray(rows, dtype=np.float32)
        key = self.identity.key()
        problem = _check_arrays(digests, rows, len(digests), self.identity)
        if problem:
            return False
        digest = shard_digest(key, digests, rows)
        seal = json.dumps({"format": SHARD_FORMAT, "key": key, "rows": len(digests),
                           "sha256": digest})
        path = self.folder / f"{digest[:32]}.npz"

        def write_shard(tmp: Path) -> None:
            with open(tmp, "wb") as fh:
                np.savez(fh, digests=digests, rows=rows, seal=np.array(seal))

        def write() -> None:
            remove_abandoned(self.folder)  # what killed writes left (the next write cleans)
            record = self.folder / "identity.json"
            if not record.is_file():
                atomic_write_json(record, {k: v for k, v in self.identity.to_dict().items()
                                           if k != "name"})
            atomic_write(path, write_shard)

        return write_to_cache(write, path)

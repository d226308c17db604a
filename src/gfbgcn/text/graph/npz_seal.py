"""A graph cache file's seal: which key it was built for and a digest of everything in it.

The cache file (:mod:`gfbgcn.text.graph.npz_writer`) is a zip of ``.npy`` members; its name
holds the key (``<corpus>-<key>.npz``, :func:`gfbgcn.text.graph.cache_key.graph_cache_key`).
Neither says that the arrays inside are the ones built for that key: a file copied from
another corpus, or rewritten with valid arrays (every label set to 0), loads as well as the
real one.  :func:`seal` appends one member, ``seal.npy``, holding the key and the SHA-256 of
the key and of every other member's name, size and CRC-32.

Checking it is cheap (:func:`check_seal`): the CRC-32 of a member is read from the zip's
directory, not recomputed, and the load that follows reads every member through ``zipfile``,
which refuses bytes that do not match that CRC (the mapped edge arrays too,
:func:`gfbgcn.text.graph.npz_map.verify_members`).  So a member changed after sealing fails
either the seal (directory CRC changed) or the read (bytes changed, CRC kept).  This guards
against accidents and naive edits, not against someone who re-seals on purpose.
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path

import numpy as np

__all__ = ["SEAL", "check_seal", "seal", "seal_digest"]

SEAL = "seal.npy"


def seal_digest(zf: zipfile.ZipFile, key: str) -> str:
    """SHA-256 of ``key`` and of the name, size and CRC-32 of every member but the seal."""
    members = sorted((i.filename, i.file_size, i.CRC) for i in zf.infolist()
                     if i.filename != SEAL)
    payload = json.dumps({"key": key, "members": members}, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()


def seal(path: str | Path, key: str) -> None:
    """Append the seal of ``key`` to the (just written, not yet published) cache file."""
    with zipfile.ZipFile(path, mode="a", compression=zipfile.ZIP_STORED,
                         allowZip64=True) as zf:
        record = json.dumps({"key": key, "sha256": seal_digest(zf, key)})
        with zf.open(SEAL, "w") as out:
            np.lib.format.write_array(out, np.array(record), allow_pickle=False)


def check_seal(path: str | Path, key: str) -> str | None:
    """``None`` when the cache file at ``path`` was sealed for ``key`` and its members are
    those sealed; otherwise the problem, in words (the caller warns and rebuilds).  A file
    that is not a readable zip raises what ``zipfile`` raises (a corrupt cache)."""
    with zipfile.ZipFile(path) as zf:
        if SEAL not in zf.namelist():
            return "it has no content digest (written by another version, or rewritten)"
        with zf.open(SEAL) as member:
            record = json.loads(str(np.lib.format.read_array(member, allow_pickle=False)))
        if not isinstance(record, dict):
            return "its content digest is unreadable"
        if record.get("key") != key:
            return (f"it was built for key {record.get('key')!r}, not {key!r} "
                    "(another corpus's or setting's graph)")
        if record.get("sha256") != seal_digest(zf, key):
            return "its arrays differ from those it was written with"
    return None

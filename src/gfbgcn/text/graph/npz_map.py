"""Arrays of an uncompressed ``.npz`` mapped from the file instead of read into memory.

The graph cache (:mod:`gfbgcn.text.graph.npz_writer`) is a zip of ``.npy`` members stored
without compression.  :func:`map_member` maps one member's data copy-on-write
(``np.memmap(mode="c")``): nothing is read until a page is touched, touched pages belong to the
page cache (the kernel can drop and re-read them), and writes stay private to the process.  A
training process can so keep the graph's ``[2, E]`` edge arrays at no resident cost once its
``Â`` exists (:meth:`gfbgcn.text.graph.text_graph.TextGraph.release_edges`).

A member that is compressed, is not a plain numeric array, is empty, or whose data does not
start at a multiple of its item size (a file gfbgcn's writer did not write) is not mapped
(``None``): the caller reads it the ordinary way.
"""

from __future__ import annotations

import struct
import zipfile
from pathlib import Path

import numpy as np

__all__ = ["map_edges", "map_member", "verify_members"]

_LOCAL_HEADER = struct.Struct("<4s2B4HL2L2H")  # the zip local file header (30 bytes)


def _data_offset(fh, info: zipfile.ZipInfo) -> int:
    """Where the member's bytes start: after its local header, name and extra fields."""
    fh.seek(info.header_offset)
    fields = _LOCAL_HEADER.unpack(fh.read(_LOCAL_HEADER.size))
    return info.header_offset + _LOCAL_HEADER.size + fields[-2] + fields[-1]


def map_member(path: str | Path, name: str) -> np.ndarray | None:
    """Member ``name`` (without ``.npy``) of the ``.npz`` at ``path`` as a copy-on-write
    memory map, or ``None`` when it cannot be mapped in place (see the module docstring)."""
    try:
        with zipfile.ZipFile(path) as zf, open(path, "rb") as fh:
            info = zf.getinfo(name + ".npy")
            if info.compress_type != zipfile.ZIP_STORED:
                return None
            fh.seek(_data_offset(fh, info))
            version = np.lib.format.read_magic(fh)
            read = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                    else np.lib.format.read_array_header_2_0)
            shape, fortran, dtype = read(fh)
            offset = fh.tell()
    except (OSError, KeyError, ValueError, zipfile.BadZipFile):
        return None
    if dtype.hasobject or fortran or offset % dtype.itemsize or 0 in shape:
        return None
    return np.memmap(path, dtype=dtype, mode="c", offset=offset, shape=shape)


def map_edges(path: str | Path) -> tuple[np.ndarray | None, np.ndarray | None]:
    """``(edge_index, edge_weight)`` of a graph cache file, each mapped or ``None``."""
    return map_member(path, "edge_index"), map_member(path, "edge_weight")


def verify_members(path: str | Path, names: list[str], chunk: int = 1 << 24) -> None:
    """Read members ``names`` through, ``chunk`` bytes at a time, so that zipfile checks their
    CRC-32 (a damaged cache fails here, as ``np.load`` would, without holding the arrays);
    raises ``zipfile.BadZipFile`` on a mismatch."""
    with zipfile.ZipFile(path) as zf:
        for name in names:
            with zf.open(name + ".npy") as member:
                while member.read(chunk):
                    pass

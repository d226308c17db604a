"""``np.savez`` without a second copy of the largest array.

The graph cache stores ``edge_index`` as int32 (half the bytes of the int64 in memory).
``np.savez(edge_index=a.astype(np.int32))`` makes that copy whole first: at 383k documents
about 2 GB on top of the graph at the build's peak.  :func:`savez_converted` writes the same
``.npz`` (an uncompressed zip of ``.npy`` members, read by ``np.load``) converting such an
array a slice at a time.  The data of ``aligned`` members starts at a multiple of 64 bytes in
the file (a padding field in the zip header where needed, which readers skip), so that those
arrays can be memory-mapped in place (:mod:`gfbgcn.text.graph.npz_map`).
"""

from __future__ import annotations

import struct
import zipfile
from typing import BinaryIO

import numpy as np

__all__ = ["savez_converted"]

#: elements converted per slice
SLICE = 1 << 22
#: alignment of every member's data in the file (numpy pads ``.npy`` headers to 64 bytes too)
ALIGN = 64
_PADDING_ID = 0xD935  # the zip extra-field id that Android's zipalign uses for padding
_ZIP64_EXTRA = 20  # what zipfile appends to a force_zip64 local header


def _aligned(fh: BinaryIO, name: str) -> zipfile.ZipInfo | str:
    """A member header for ``name`` whose data (after the 30-byte local header, the name, the
    extra fields and the 64-byte-padded ``.npy`` header) starts at a multiple of :data:`ALIGN`,
    given that the header is written at ``fh.tell()`` (just ``name`` where it does already)."""
    used = fh.tell() + 30 + len(name.encode()) + _ZIP64_EXTRA
    if used % ALIGN == 0:
        return name
    info = zipfile.ZipInfo(name)
    info.compress_type = zipfile.ZIP_STORED
    pad = -(used + 4) % ALIGN
    info.extra = struct.pack("<HH", _PADDING_ID, pad) + bytes(pad)
    return info


def _write_member(fh: BinaryIO, zf: zipfile.ZipFile, name: str, array: np.ndarray,
                  dtype: np.dtype) -> None:
    array = np.ascontiguousarray(array)
    header = np.lib.format.header_data_from_array_1_0(array)
    header["descr"] = np.lib.format.dtype_to_descr(np.dtype(dtype))
    with zf.open(_aligned(fh, name + ".npy"), "w", force_zip64=True) as out:
        np.lib.format.write_array_header_2_0(out, header)
        flat = array.reshape(-1)
        for start in range(0, len(flat), SLICE):
            out.write(flat[start : start + SLICE].astype(dtype).data)  # .data: its buffer


def savez_converted(
    fh: BinaryIO, converted: dict[str, tuple[np.ndarray, type]],
    aligned: tuple[str, ...] = (), **arrays: np.ndarray
) -> None:
    """Like ``np.savez(fh, **arrays)``, plus ``converted`` arrays written as ``(array, dtype)``
    a slice at a time (the values must fit the dtype: ``astype`` semantics).  The converted
    arrays and those named in ``aligned`` start at a multiple of :data:`ALIGN` bytes."""
    with zipfile.ZipFile(fh, mode="w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
        for name, (array, dtype) in converted.items():
            _write_member(fh, zf, name, array, np.dtype(dtype))
        for name, array in arrays.items():
            member = _aligned(fh, name + ".npy") if name in aligned else name + ".npy"
            with zf.open(member, "w", force_zip64=True) as out:
                np.lib.format.write_array(out, np.asanyarray(array), allow_pickle=False)

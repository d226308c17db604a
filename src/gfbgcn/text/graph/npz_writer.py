"""``np.savez`` without a second copy of the largest array.

The graph cache stores ``edge_index`` as int32 (half the bytes of the int64 in memory).
``np.savez(edge_index=a.astype(np.int32))`` makes that copy whole first: at 383k documents
about 2 GB on top of the graph at the build's peak.  :func:`savez_converted` writes the same
``.npz`` (an uncompressed zip of ``.npy`` members, read by ``np.load``) converting such an
array a slice at a time.
"""

from __future__ import annotations

import zipfile
from typing import BinaryIO

import numpy as np

__all__ = ["savez_converted"]

#: elements converted per slice
SLICE = 1 << 22


def _write_member(zf: zipfile.ZipFile, name: str, array: np.ndarray, dtype: np.dtype) -> None:
    array = np.ascontiguousarray(array)
    header = np.lib.format.header_data_from_array_1_0(array)
    header["descr"] = np.lib.format.dtype_to_descr(np.dtype(dtype))
    with zf.open(name + ".npy", "w", force_zip64=True) as out:
        np.lib.format.write_array_header_2_0(out, header)
        flat = array.reshape(-1)
        for start in range(0, len(flat), SLICE):
            out.write(flat[start : start + SLICE].astype(dtype))


def savez_converted(
    fh: BinaryIO, converted: dict[str, tuple[np.ndarray, type]], **arrays: np.ndarray
) -> None:
    """Like ``np.savez(fh, **arrays)``, plus ``converted`` arrays written as ``(array, dtype)``
    a slice at a time (the values must fit the dtype: ``astype`` semantics)."""
    with zipfile.ZipFile(fh, mode="w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
        for name, (array, dtype) in converted.items():
            _write_member(zf, name, array, np.dtype(dtype))
        for name, array in arrays.items():
            with zf.open(name + ".npy", "w", force_zip64=True) as out:
                np.lib.format.write_array(out, np.asanyarray(array), allow_pickle=False)

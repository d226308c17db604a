"""What the figure tests read of a PNG file: its signature and its size in pixels."""

from __future__ import annotations

import struct
from pathlib import Path

SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_size(path: Path) -> tuple[int, int]:
    """``(width, height)`` of the PNG ``path``, from its IHDR chunk; an ``AssertionError``
    where the file is not a PNG."""
    data = Path(path).read_bytes()
    assert data[:8] == SIGNATURE, f"{path} is not a PNG"
    assert data[12:16] == b"IHDR", f"{path}: no IHDR chunk first"
    return struct.unpack(">II", data[16:24])

"""The candidate files of ``vs_linear.py``'s ``--auto`` records (``*_candidates.npz``): how they
are written and how the readers (``vs_linear_rechoose.py``, ``selection_study.py``,
``baseline_grid_records.py``) find the built-in baseline's validation probabilities in them."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path
from typing import Any

import numpy as np


def save_candidates(path: Path, **arrays: np.ndarray) -> None:
    """``arrays`` as an ``.npz`` that ``np.load`` reads, compressed with LZMA rather than
    ``np.savez_compressed``'s deflate: the probabilities of a many-class corpus (R52's
    ``[4, V, 52]``) take about a tenth less, which helps keep each record under the repository's
    size limit for tracked files.  Lossless, as deflate is."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_LZMA) as archive:
        for name, array in arrays.items():
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, np.asanyarray(array), allow_pickle=False)
            archive.writestr(f"{name}.npy", buffer.getvalue())


def baseline_val_proba(arrays: Any) -> np.ndarray:
    """``[V, C]`` the built-in baseline's held-out validation probabilities: the first of
    ``linears_val_proba`` (the linear models, the baseline first), or ``linear_val_proba`` in
    the records written before that array held it."""
    if "linears_val_proba" in arrays:
        return np.asarray(arrays["linears_val_proba"][0])
    return np.asarray(arrays["linear_val_proba"])

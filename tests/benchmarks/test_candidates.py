"""The candidate files of vs_linear.py's records: written losslessly, read by np.load, and the
baseline's validation probabilities found in either layout."""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np

from tests.benchmarks._load import load_script


def _module():
    return load_script("_candidates")


def test_saved_candidates_load_back_bit_for_bit_and_compressed(tmp_path: Path) -> None:
    m = _module()
    rng = np.random.default_rng(0)
    arrays = {"val_labels": rng.integers(0, 5, 40),
              "linears_val_proba": rng.dirichlet(np.ones(5), (3, 40)),
              "graph_val_proba": rng.dirichlet(np.ones(5), (2, 40)).astype(np.float32),
              "test_pred": rng.integers(0, 5, (4, 30)).astype(np.int16)}
    path = tmp_path / "r_candidates.npz"
    m.save_candidates(path, **arrays)
    with zipfile.ZipFile(path) as archive:
        assert {i.compress_type for i in archive.infolist()} == {zipfile.ZIP_LZMA}
    loaded = np.load(path)
    assert set(loaded.files) == set(arrays)
    for name, array in arrays.items():
        assert loaded[name].dtype == array.dtype and np.array_equal(loaded[name], array)
    assert np.array_equal(m.baseline_val_proba(loaded), arrays["linears_val_proba"][0])


def test_an_older_record_keeps_its_own_baseline_array() -> None:
    m = _module()
    old = {"linear_val_proba": np.full((2, 3), 1 / 3)}
    assert np.array_equal(m.baseline_val_proba(old), old["linear_val_proba"])

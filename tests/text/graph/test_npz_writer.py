"""The sliced .npz writer gives what np.savez gives, read back by np.load."""

from __future__ import annotations

import io

import numpy as np

import gfbgcn.text.graph.npz_writer as npz_writer
from gfbgcn.text.graph.npz_writer import savez_converted


def test_sliced_conversion_reads_back_like_savez(monkeypatch):
    monkeypatch.setattr(npz_writer, "SLICE", 7)  # many slices, a partial last one
    edge_index = np.arange(2 * 25, dtype=np.int64).reshape(2, 25) * 3
    weights = np.linspace(0, 1, 25, dtype=np.float32)
    buffer = io.BytesIO()
    savez_converted(buffer, {"edge_index": (edge_index, np.int32)}, weight=weights,
                    names=np.array(["a", "bcd"]), meta=np.array('{"k": 1}'))
    buffer.seek(0)
    with np.load(buffer, allow_pickle=False) as z:
        assert sorted(z.files) == ["edge_index", "meta", "names", "weight"]
        assert z["edge_index"].dtype == np.int32
        np.testing.assert_array_equal(z["edge_index"], edge_index)
        np.testing.assert_array_equal(z["weight"], weights)
        assert list(z["names"]) == ["a", "bcd"] and str(z["meta"]) == '{"k": 1}'

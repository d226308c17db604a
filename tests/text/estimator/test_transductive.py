"""The outputs of the fitted documents: found by content, saved without text, checked on load."""

from __future__ import annotations

import numpy as np
import pytest

from gfbgcn.core.errors import ModelLoadError
from gfbgcn.text.estimator.transductive import (
    TRANSDUCTIVE_FILE,
    Transductive,
    text_digests,
)


def _outputs() -> Transductive:
    probs = np.array([[0.9, 0.1], [0.2, 0.8], [0.5, 0.5]])
    return Transductive.of(["one", "two", "one"], probs)


def test_rows_by_exact_text_first_of_duplicates():
    rows = _outputs().rows(["two", "one", "One", "three", "one "])
    assert rows.tolist() == [1, 0, -1, -1, -1]
    assert Transductive.empty(2).rows(["one"]).tolist() == [-1]
    assert text_digests(["é"]).shape == (1, 32)


def test_write_read_round_trip(tmp_path):
    out = _outputs()
    entry = out.write(tmp_path)
    back = Transductive.read(tmp_path, entry, 2)
    np.testing.assert_array_equal(back.digests, out.digests)
    np.testing.assert_array_equal(back.probabilities, out.probabilities)
    assert b"one" not in (tmp_path / TRANSDUCTIVE_FILE).read_bytes()  # no text is stored


def test_a_modified_or_mismatched_file_is_refused(tmp_path):
    entry = _outputs().write(tmp_path)
    with pytest.raises(ModelLoadError, match="do not fit 3 documents of 4 classes"):
        Transductive.read(tmp_path, entry, 4)
    path = tmp_path / TRANSDUCTIVE_FILE
    path.write_bytes(path.read_bytes()[:-1] + b"\x00")
    with pytest.raises(ModelLoadError, match="checksum mismatch"):
        Transductive.read(tmp_path, entry, 2)
    path.unlink()
    with pytest.raises(ModelLoadError, match="is missing"):
        Transductive.read(tmp_path, entry, 2)

"""A multi-label run's per-label F1 bars."""

from __future__ import annotations

import pytest

from gfbgcn.core.figures.label_scores import draw_label_scores
from tests.core.figures.png import png_size


def test_one_bar_per_label_in_a_png_as_tall_as_the_labels_need(tmp_path) -> None:
    draw_label_scores(["a", "b"], [0.5, 1.0], [3, 4], tmp_path / "few.png")
    draw_label_scores([f"l{i}" for i in range(40)], [0.5] * 40, [1] * 40, tmp_path / "many.png")
    few, many = png_size(tmp_path / "few.png"), png_size(tmp_path / "many.png")
    assert few[0] == many[0] == 700 and few[1] < many[1]


def test_scores_that_do_not_match_the_labels_are_refused(tmp_path) -> None:
    with pytest.raises(ValueError, match="2 names, 1 scores"):
        draw_label_scores(["a", "b"], [0.5], [3, 4], tmp_path / "x.png")
    assert not (tmp_path / "x.png").exists()

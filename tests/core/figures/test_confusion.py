"""The confusion matrix figure: labels in the order given, readable at any size."""

from __future__ import annotations

import numpy as np

from gfbgcn.core.figures import confusion
from gfbgcn.core.figures.confusion import (
    ANNOTATED_MAX,
    draw_confusion,
    figure_size,
    label_font_size,
)
from tests.core.figures.png import png_size


def _texts(tmp_path, monkeypatch, n: int):
    """The tick labels and the number of cell texts drawn for an ``n``-class matrix."""
    seen = {}
    real = confusion.save_png

    def spy(fig, path):
        ax = fig.axes[0]
        seen["x"] = [t.get_text() for t in ax.get_xticklabels()]
        seen["y"] = [t.get_text() for t in ax.get_yticklabels()]
        seen["cells"] = len(ax.texts)
        return real(fig, path)

    monkeypatch.setattr(confusion, "save_png", spy)
    names = [f"c{i}" for i in range(n)][::-1]  # not sorted: the order given is kept
    counts = np.arange(n * n).reshape(n, n)
    draw_confusion(counts, names, names, tmp_path / "cm.png")
    return names, seen


def test_labels_keep_their_order_and_counts_show_only_when_few(tmp_path, monkeypatch) -> None:
    names, seen = _texts(tmp_path, monkeypatch, 4)
    assert seen["x"] == names and seen["y"] == names and seen["cells"] == 16
    names, seen = _texts(tmp_path, monkeypatch, ANNOTATED_MAX + 1)
    assert seen["x"] == names and seen["cells"] == 0  # colours only


def test_the_figure_grows_with_the_labels_up_to_a_bound(tmp_path) -> None:
    sizes = []
    for n in (3, 20):
        names = [str(i) for i in range(n)]
        draw_confusion(np.eye(n, dtype=int), names, names, tmp_path / f"{n}.png")
        sizes.append(png_size(tmp_path / f"{n}.png"))
    assert sizes[0][1] == round(figure_size(3) * 100) < sizes[1][1] == round(figure_size(20) * 100)
    assert figure_size(74) < figure_size(200) == figure_size(1000) == 30.0
    assert label_font_size(3) == 10 and label_font_size(100) == 4 and label_font_size(80) == 5

"""Training curves: the panels a history calls for, a log scale where the losses span a
decade, the best epoch marked, and nothing of pyplot's global state touched."""

from __future__ import annotations

import math

import matplotlib
import numpy as np
import pytest

from gfbgcn.core.figures import curves
from gfbgcn.core.figures.curves import column, draw_curves, metric_keys, wants_log_scale
from tests.core.figures.png import png_size


def _history(epochs: int = 12, multi: bool = False, lam: bool = False) -> list[dict]:
    rows = []
    for e in range(1, epochs + 1):
        row = {"epoch": e, "train_loss": 2.0 * math.exp(-e / 2), "train_acc": 1 - 1 / (e + 1),
               "val_loss": 2.0 * math.exp(-e / 3) + 0.01, "val_acc": 1 - 1 / (e + 2),
               "seconds": 0.01}
        if multi:
            row |= {"val_micro_f1": e / epochs, "val_macro_f1": e / (2 * epochs)}
        if lam:
            row["lambda"] = 1.0 + e / 100
        rows.append(row)
    return rows


def test_log_scale_only_where_the_losses_span_a_decade() -> None:
    assert wants_log_scale(np.array([2.0, 0.5]), np.array([0.19]))
    assert not wants_log_scale(np.array([2.0, 0.5]), np.array([0.21]))
    assert not wants_log_scale(np.array([1.0, 0.0]))  # a zero loss: no log axis
    assert not wants_log_scale(np.array([np.nan, np.inf]))
    assert not wants_log_scale()


def test_the_metric_panel_shows_f1_for_multi_label_and_accuracy_otherwise() -> None:
    assert [k for k, _ in metric_keys(_history())] == ["val_acc", "train_acc"]
    assert [k for k, _ in metric_keys(_history(multi=True))] == ["val_micro_f1", "val_macro_f1"]


def test_column_reads_written_strings_and_misses_a_key_any_entry_lacks() -> None:
    rows = [{"epoch": "1", "val_loss": "0.5"}, {"epoch": "2", "val_loss": ""}]
    assert column(rows, "epoch").tolist() == [1.0, 2.0]
    assert column(rows, "val_loss") is None and column(rows, "lambda") is None
    assert column([], "epoch") is None


def _draw(tmp_path, history, monkeypatch, **kw):
    """Draw, recording the axes' scales and vertical lines (what the PNG cannot be asked)."""
    seen = {}
    real = curves.save_png

    def spy(fig, path):
        seen["axes"] = [(ax.get_yscale(), [line.get_xdata()[0] for line in ax.lines
                                           if line.get_linestyle() == "--"])
                        for ax in fig.axes]
        return real(fig, path)

    monkeypatch.setattr(curves, "save_png", spy)
    path = draw_curves(history, tmp_path / "curves.png", **kw)
    return path, seen["axes"]


def test_curves_are_a_png_of_two_or_three_panels_with_the_best_epoch(tmp_path,
                                                                    monkeypatch) -> None:
    path, axes = _draw(tmp_path, _history(), monkeypatch, best_epoch=7, title="gcn on toy")
    width, height = png_size(path)
    assert (width, height) == (1000, 400)  # two 5 x 4 inch panels at 100 dpi
    assert [scale for scale, _ in axes] == ["log", "linear"]  # the losses span 2.0 .. 0.01
    assert all(lines == [7] for _, lines in axes)  # the best epoch on every panel
    path, axes = _draw(tmp_path, _history(lam=True, multi=True), monkeypatch, best_epoch=99)
    assert png_size(path) == (1500, 400)  # and lambda's panel
    assert all(lines == [] for _, lines in axes)  # an epoch the history lacks: not marked


def test_a_short_history_of_flat_losses_stays_linear(tmp_path, monkeypatch) -> None:
    flat = [{"epoch": 1, "train_loss": 0.7, "val_loss": 0.69, "val_acc": 0.5}]
    path, axes = _draw(tmp_path, flat, monkeypatch, best_epoch=1)
    assert axes[0][0] == "linear" and png_size(path)[0] == 1000


def test_an_empty_history_has_no_curves(tmp_path) -> None:
    with pytest.raises(ValueError, match="empty history"):
        draw_curves([], tmp_path / "c.png")
    assert not (tmp_path / "c.png").exists()


def test_drawing_leaves_pyplot_and_the_backend_alone(tmp_path) -> None:
    """A notebook's inline backend and its open figures stay as they were."""
    import matplotlib.pyplot as plt

    backend, figures = matplotlib.get_backend(), plt.get_fignums()
    draw_curves(_history(), tmp_path / "c.png")
    assert matplotlib.get_backend() == backend and plt.get_fignums() == figures

"""The validation rule shared by the single- and multi-label baselines: the highest score,
ties to the lower loss, then the earlier grid point."""

from __future__ import annotations

from gfbgcn.text.predict.linear_grid import GridPoint, best_on_validation


def test_best_on_validation_breaks_ties_by_loss_then_order():
    points = [GridPoint("svm", "C", c) for c in (0.1, 0.3, 1.0, 3.0)]
    scored = {0.1: (0.8, 0.5), 0.3: (0.9, 0.4), 1.0: (0.9, 0.3), 3.0: (0.9, 0.3)}

    def evaluate(point: GridPoint):
        score, loss = scored[point.value]
        return score, loss, {"val_accuracy": score}, f"kept {point.value}"

    point, kept, rows = best_on_validation(points, evaluate)
    assert point.value == 1.0 and kept == "kept 1.0"  # 0.3 loses on loss, 3.0 on order
    assert rows == [{"kind": "svm", "C": c, "val_accuracy": scored[c][0]} for c in scored]

"""The figures of a training run, drawn together into its directory.

``curves.png``: the losses and validation metrics per epoch (:mod:`.curves`);
``confusion.png``: the test documents' confusion matrix, of a single-label run
(:mod:`.confusion`); ``label_f1.png``: each label's test F1, of a multi-label run
(:mod:`.label_scores`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from gfbgcn.core.figures.confusion import draw_confusion
from gfbgcn.core.figures.curves import draw_curves
from gfbgcn.core.figures.label_scores import draw_label_scores

CURVES = "curves.png"
CONFUSION = "confusion.png"
LABEL_F1 = "label_f1.png"
#: Every figure a run directory may hold.
RUN_FIGURES = (CURVES, CONFUSION, LABEL_F1)


def draw_run_figures(directory: str | Path, history: Sequence[Mapping[str, Any]], *,
                     label_names: Sequence[str], best_epoch: int | None = None,
                     confusion: np.ndarray | None = None,
                     label_f1: tuple[Sequence[float], Sequence[int]] | None = None,
                     title: str = "", predictor: str = "",
                     purpose: str = "the figures of a run") -> list[str]:
    """Draw a run's figures into ``directory``; the names of the files written.

    Args:
        history: per-epoch entries (:mod:`gfbgcn.core.figures.curves`); none: no curves.
        label_names: ``[C]`` the model's labels, in the order of its outputs.
        best_epoch: the epoch whose weights were kept, marked on the curves.
        confusion: ``[C, C]`` test counts, rows the true labels and columns the predicted
            ones, both in ``label_names`` order (single-label).
        label_f1: ``([C] F1, [C] support)`` of each label on the test documents (multi-label).
        title: above every figure (the model and the corpus, say).
        predictor: above the test figures instead, where the predictor scored is not the
            model trained (a combination of it with another, say).
        purpose: what needs matplotlib, in the one-line error raised without it.
    """
    directory = Path(directory)
    written = []
    scored = predictor or title
    if history:
        draw_curves(history, directory / CURVES, best_epoch=best_epoch, title=title,
                    purpose=purpose)
        written.append(CURVES)
    if confusion is not None:
        total = int(np.asarray(confusion).sum())
        right = int(np.trace(np.asarray(confusion)))
        draw_confusion(confusion, label_names, label_names, directory / CONFUSION,
                       title=f"{scored}{': ' if scored else ''}{total} test documents, accuracy "
                             f"{right / max(total, 1):.4f}", purpose=purpose)
        written.append(CONFUSION)
    if label_f1 is not None:
        draw_label_scores(label_names, label_f1[0], label_f1[1], directory / LABEL_F1,
                          title=scored, purpose=purpose)
        written.append(LABEL_F1)
    return written

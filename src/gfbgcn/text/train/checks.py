"""Checks that refuse a degenerate training run before it starts (or reports nonsense).

A run needs at least one training, one validation and one test document and at least two
classes; a class without any training document is allowed but warned about (the model cannot
learn it).  The training settings are range-checked here too, so the Python API refuses what
the command line refuses.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from gfbgcn.core.errors import OptionError, UserError
from gfbgcn.text.params import WHOLE_MODELS, check_parameter


class ClassWithoutTrainingWarning(UserWarning):
    """Some class has no training document: the model cannot predict it."""


#: The ``TrainConfig`` fields that are parameters of the table (``seed``: ``random_state``).
_TABLE_FIELDS = {"model": "model", "seed": "random_state", "hidden": "hidden",
                 "dropout": "dropout", "lr": "lr", "weight_decay": "weight_decay",
                 "epochs": "epochs", "patience": "patience", "val_ratio": "val_ratio",
                 "batch_size": "batch_size", "fanout": "fanout", "row_budget": "row_budget",
                 "optimizer": "optimizer"}


def check_train_settings(config: Any) -> None:
    """Refuse settings that cannot train (``epochs 0``, ``hidden 0``, ``val_ratio 1``, ...) or
    are not numbers, naming the setting (an :class:`OptionError`; the command line shows its
    option), by the ranges of :data:`gfbgcn.text.params.PARAMETERS`; then the settings that do
    not go together."""
    for field, name in _TABLE_FIELDS.items():
        check_parameter(name, getattr(config, field), field, words=False)
    if config.batch_size and config.model in WHOLE_MODELS:
        raise OptionError("{0} supports the two-layer models, not {model}", "batch_size",
                          model=config.model)
    if config.row_budget and not config.batch_size:
        raise OptionError("{0} applies only with {1}: add {1}, or drop {0}", "row_budget",
                          "batch_size")


def check_finite_loss(epoch: int, train_loss: float, val_loss: float, config: Any) -> None:
    """Stop a run whose loss became NaN or infinite: its weights are garbage from here on,
    and early stopping would otherwise go on silently with the last finite ones."""
    if math.isfinite(train_loss) and math.isfinite(val_loss):
        return
    raise OptionError("the loss became non-finite at epoch {epoch} (training {train}, "
                      "validation {val}): training diverged; lower {0} (now {lr:g}) or {1} "
                      "(now {wd:g})", "lr", "weight_decay", epoch=epoch, train=train_loss,
                      val=val_loss, lr=config.lr, wd=config.weight_decay)


def check_batch_size(is_train: np.ndarray, batch_size: int, val_ratio: float,
                     n_val: int | None = None) -> None:
    """Refuse ``--batch-size`` larger than the training documents left after the validation
    split (``n_val`` of them, as :meth:`TextGraph.validation_docs` draws; default
    ``round(val_ratio * train)``)."""
    n_train = int(np.count_nonzero(is_train))
    n_val = int(round(val_ratio * n_train)) if n_val is None else n_val
    if batch_size > n_train - n_val:
        raise OptionError("{0} {batch_size} is larger than the {left:,} training documents "
                          "({1} {val_ratio} kept {n_val:,} of {n_train:,} for validation); use "
                          "at most {left}, or 0 for full-batch training", "batch_size",
                          "val_ratio", batch_size=batch_size, left=n_train - n_val,
                          val_ratio=val_ratio, n_val=n_val, n_train=n_train)


def check_has_test(is_train: np.ndarray) -> None:
    """Refuse a corpus without test documents (``gfbgcn train`` reports test metrics; the
    Python API may train on training documents only, e.g. for inductive prediction)."""
    if bool(np.all(is_train)):
        raise UserError("no test documents: every document is in the training split (mark "
                        "some rows 'test' in the split column; without one, the drawn 10% test "
                        "split rounds to no document of any class: add documents)")


def check_has_words(num_words: int, min_freq: int) -> None:
    """Refuse a graph without word nodes: every token was a stop word or rarer than
    ``--min-freq``, so the documents are isolated and there is nothing to learn from."""
    if num_words == 0:
        raise OptionError("no word is left after cleaning (stop words, {0} {min_freq}): the "
                          "documents share nothing to learn from; lower {0} or check the text "
                          "column", "min_freq", min_freq=min_freq)


def check_split(label_ids: np.ndarray, label_names: Sequence[str], train: np.ndarray,
                val: np.ndarray, val_ratio: float, multi_label: bool = False) -> None:
    """Refuse an empty training or validation split or a single class; warn about classes
    without training documents.  ``train``/``val``: document indices."""
    n_train_docs = len(train) + len(val)
    if len(train) == 0:
        raise OptionError("no training documents left ({n} before {0} {val_ratio} took the "
                          "validation share): add training rows or lower {0}", "val_ratio",
                          n=n_train_docs, val_ratio=val_ratio)
    if len(val) == 0 and round(val_ratio * n_train_docs) > 0:
        # only the split stratified by class is empty with a share above 0: each class keeps
        # its one training document (gfbgcn.text.corpus.splits)
        raise OptionError(f"the validation split is empty: no class has two training "
                          f"documents to give one to validation ({n_train_docs} training "
                          f"document(s)); add training rows")
    if len(val) == 0:
        raise OptionError("the validation split is empty ({0} {val_ratio} of {n} training "
                          "document(s) rounds to 0): raise {0} or add training rows",
                          "val_ratio", n=n_train_docs, val_ratio=val_ratio)
    if multi_label:
        return
    check_classes(label_names)
    seen = np.bincount(label_ids[train], minlength=len(label_names))
    absent = [label_names[c] for c in np.flatnonzero(seen == 0).tolist()]
    if absent:
        shown = ", ".join(repr(a) for a in absent[:5]) + (" ..." if len(absent) > 5 else "")
        warnings.warn(f"{len(absent)} class(es) have no training document ({shown}): the "
                      "model cannot learn them, and their test documents will be "
                      "misclassified", ClassWithoutTrainingWarning, stacklevel=3)


def check_classes(label_names: Sequence[str]) -> None:
    """Refuse a single-label corpus with fewer than two classes."""
    if len(label_names) < 2:
        shown = f" ({label_names[0]!r})" if label_names else ""
        raise UserError(f"only one class{shown} in the corpus: there is nothing to classify "
                        "(at least two labels are needed)")


def check_converged(best_epoch: int, history: Sequence[dict[str, float]], lr: float) -> None:
    """Refuse a run whose validation loss was never finite (diverged): no NaN metrics."""
    if best_epoch >= 1 and history:
        return
    first = next((h for h in history if not math.isfinite(h["val_loss"])), None)
    where = f" ({first['val_loss']} at epoch {first['epoch']})" if first else ""
    raise OptionError("training diverged: the validation loss was never finite{where}; lower "
                      "{0} (now {lr})", "lr", where=where, lr=lr)


def json_safe(obj: Any) -> Any:
    """``obj`` with NaN and infinities replaced by ``None``: strict JSON, not ``NaN``."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_safe(v) for v in obj]
    return obj

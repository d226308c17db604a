"""``TextGCNClassifier(tensorboard=DIR)`` (``gfbgcn train --tensorboard DIR``): each fit's
training logged for TensorBoard, epoch by epoch, as it runs.

A fit writes one TensorBoard run, a new directory under ``DIR`` named by when it started, its
model and its seed (``DIR/20260101-120000-gfb-max-seed0``; a suffix ``-2``, ``-3``, ... keeps
fits of the same second apart, as ``GridSearchCV`` makes them), so that ``tensorboard --logdir
DIR`` shows fits side by side and a later fit never mixes its points into an earlier one's.
An ``auto`` fit writes one run per candidate trained, under its own directory
(``DIR/...-auto-seed0/03-gfb-mean-stop=none_min_freq=2_window=20``).

Each run holds, per epoch (the step), the entries of its history (:data:`TAGS`: the losses,
the validation and training accuracy, a multi-label run's F1 scores, a GFB model's lambda,
the epoch's seconds), ``best/...`` (the validation values of the best epoch so far, the one
early stopping keeps: what the hyperparameters are compared by) and its hyperparameters
(TensorBoard's HParams tab: the training settings, and the graph's).  The learning rate is a
hyperparameter: gfbgcn's optimisers keep it constant; a hook that records one per epoch
(``lr``) has it drawn as a scalar too.

The values come from the training loops' :data:`~gfbgcn.text.train.hooks.EpochCallback` as
each epoch is recorded, so a run still training can be watched.  Writing uses
:class:`torch.utils.tensorboard.SummaryWriter`, which needs the ``tensorboard`` package (the
``tensorboard`` extra); :func:`check_tensorboard` says so in one line before any work.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import tempfile
import time
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from gfbgcn.core.errors import OptionError
from gfbgcn.core.extras import require
from gfbgcn.text.graph.text_graph import TextGraph
from gfbgcn.text.train.config import TrainConfig
from gfbgcn.text.train.hooks import EpochCallback

#: The scalar tag of each history entry; others are logged under their own name.
TAGS = {"train_loss": "loss/train", "val_loss": "loss/validation",
        "train_acc": "accuracy/train", "val_acc": "accuracy/validation",
        "val_micro_f1": "f1/validation_micro", "val_macro_f1": "f1/validation_macro",
        "lambda": "gfb/lambda", "seconds": "time/epoch_seconds", "batches": "time/batches",
        "lr": "lr"}
#: The validation entries logged at the best epoch so far, under ``best/...``.
BEST = ("val_loss", "val_acc", "val_micro_f1", "val_macro_f1")


def check_tensorboard(directory: object) -> Path | None:
    """``tensorboard``: ``None``, or a directory that can be created and written, with the
    ``tensorboard`` package installed -- checked before any work (the directory is created).

    Raises:
        OptionError: not a path, or a path that is a file or cannot be written.
        MissingExtraError: ``tensorboard`` is not installed (names the pip command).
    """
    if directory is None:
        return None
    if isinstance(directory, os.PathLike):
        directory = os.fspath(directory)
    if not isinstance(directory, str) or not directory.strip():
        raise OptionError("{0} must be a directory, got {value!r}", "tensorboard",
                          value=directory)
    path = Path(directory)
    if path.exists() and not path.is_dir():
        raise OptionError("{0} {path}: exists and is not a directory", "tensorboard",
                          path=directory)
    require("tensorboard", "tensorboard", "TensorBoard logging")
    try:
        path.mkdir(parents=True, exist_ok=True)
        os.rmdir(tempfile.mkdtemp(prefix=".probe-", dir=path))
    except OSError as err:
        raise OptionError("{0} {path}: cannot write there ({reason})", "tensorboard",
                          path=directory, reason=err.strerror or err) from None
    return path


def safe_name(text: str) -> str:
    """``text`` as one directory name: runs of anything but letters, digits and ``.=+-``
    become ``_``."""
    return re.sub(r"[^A-Za-z0-9.=+-]+", "_", text).strip("_") or "run"


def new_directory(root: Path, name: str) -> Path:
    """A directory ``root/name`` made now, ``name-2``, ``name-3``, ... where taken (by an
    earlier fit, or a parallel one: ``mkdir`` decides, atomically)."""
    for n in range(1, 10_000):
        path = root / (name if n == 1 else f"{name}-{n}")
        try:
            path.mkdir(parents=True)
            return path
        except FileExistsError:
            continue
    raise OptionError("{0} {path}: too many runs named {name}", "tensorboard",
                      path=str(root), name=name)


def train_hparams(config: TrainConfig, **more: Any) -> dict[str, Any]:
    """A run's hyperparameters as TensorBoard takes them (numbers, strings, booleans): the
    :class:`TrainConfig` fields (``layer_options`` spread out, ``None`` as ``"none"``) and
    ``more`` (the graph's settings, say)."""
    flat: dict[str, Any] = {}
    for key, value in {**asdict(config), **more}.items():
        items = value.items() if isinstance(value, Mapping) else [("", value)]
        for sub, v in items:
            name = f"{key}.{sub}" if sub else key
            flat[name] = "none" if v is None else v if isinstance(v, (bool, int, float, str)) \
                else str(v)
    return flat


@dataclass
class _Run:
    """One training run's writer and the best validation values so far."""

    writer: Any
    monitor: str
    hparams: dict[str, Any]
    best: dict[str, float] = field(default_factory=dict)
    started: bool = False

    def epoch(self, entry: Mapping[str, float]) -> None:
        step = int(entry.get("epoch", 0))
        if not self.started:  # the hyperparameters, with the metrics known from now on
            self._start([f"best/{k}" for k in BEST if k in entry])
        for key, value in entry.items():
            if key != "epoch" and _finite(value):
                self.writer.add_scalar(TAGS.get(key, key), float(value), step)
        if self._improves(entry):
            self.best = {k: float(entry[k]) for k in BEST if k in entry}
        for key, value in self.best.items():
            self.writer.add_scalar(f"best/{key}", value, step)
        self.writer.flush()  # watchable while it trains

    def _improves(self, entry: Mapping[str, float]) -> bool:
        """As early stopping judges it (:class:`gfbgcn.core.early_stopping.EarlyStopping`,
        no margin): a strictly better monitored validation value."""
        key = "val_loss" if self.monitor == "loss" else "val_acc"
        if key not in entry or not _finite(entry[key]):
            return False
        if not self.best:
            return True
        new, old = float(entry[key]), self.best[key]
        return new < old if self.monitor == "loss" else new > old

    def _start(self, metrics: list[str]) -> None:
        """The hyperparameters and the metrics they are compared by, as ``SummaryWriter.
        add_hparams`` writes them, in this run's own directory (``add_hparams`` would make a
        sub-directory of its own, a run apart from the curves)."""
        from torch.utils.tensorboard.summary import hparams

        for summary in hparams(self.hparams, {m: 0.0 for m in metrics}):
            self.writer.file_writer.add_summary(summary)
        self.started = True


def _finite(value: Any) -> bool:
    try:
        return math.isfinite(float(value))
    except (TypeError, ValueError):
        return False


class TensorBoardLog:
    """The TensorBoard runs of one fit, under ``root`` (see the module docstring).

    :meth:`run` gives each training run's :data:`~gfbgcn.text.train.hooks.EpochCallback`;
    :meth:`close` (or leaving the ``with`` block, also on a failure) closes every run's
    writer, so that what was logged is on disk.
    """

    def __init__(self, root: str | Path, name: str) -> None:
        self.directory = new_directory(Path(root), safe_name(name))
        self._runs: list[_Run] = []

    def run(self, hparams: dict[str, Any], name: str = "", monitor: str = "loss"
            ) -> EpochCallback:
        """The callback logging one training run's epochs into this fit's directory
        (``name``: a sub-directory of it, one per candidate of a search), with its
        ``hparams`` (:func:`train_hparams`) and the validation value early stopping watches
        (``monitor``: ``loss`` or ``accuracy``)."""
        from torch.utils.tensorboard import SummaryWriter

        where = self.directory / safe_name(name) if name else self.directory
        run = _Run(SummaryWriter(log_dir=str(where)), monitor, hparams)
        self._runs.append(run)
        return run.epoch

    def candidate(self, name: str, config: TrainConfig, graph: Mapping[str, Any]
                  ) -> EpochCallback:
        """The callback of one candidate of an ``auto`` search (a run named ``name``, trained
        with ``config`` on a graph of the settings ``graph``):
        :data:`gfbgcn.text.search.auto.Watch`."""
        return self.run(train_hparams(config, graph=dict(graph)), name, config.monitor)

    def close(self) -> None:
        for run in self._runs:
            run.writer.close()
        self._runs = []

    def __enter__(self) -> TensorBoardLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def watch_run(log: TensorBoardLog | None, config: TrainConfig, graph: TextGraph
              ) -> EpochCallback | None:
    """The callback logging one run of ``config`` on ``graph`` into ``log`` (the fit's
    directory itself); ``None`` without a log."""
    if log is None:
        return None
    return log.run(train_hparams(config, graph={**asdict(graph.config),
                                                "tokenizer": graph.tokenizer}),
                   monitor=config.monitor)


@contextlib.contextmanager
def fit_log(root: Path | None, name: str) -> Iterator[TensorBoardLog | None]:
    """A :class:`TensorBoardLog` for one fit under ``root`` (``None``: no logging, ``None``
    given), closed at the end."""
    if root is None:
        yield None
        return
    with TensorBoardLog(root, f"{time.strftime('%Y%m%d-%H%M%S')}-{name}") as log:
        yield log

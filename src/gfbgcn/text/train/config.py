"""The settings of a training run and what it returns."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import torch

from gfbgcn.core.runinfo import machine_info, package_versions
from gfbgcn.text.corpus.weights import ClassWeight, check_class_weight
from gfbgcn.text.params import DEFAULTS, WHOLE_MODELS
from gfbgcn.text.train.checks import check_train_settings
from gfbgcn.text.train.features.inputs import check_features_fit
from gfbgcn.text.train.models import check_model
from gfbgcn.text.train.optim import check_optimizer


@dataclass
class TrainConfig:
    """The settings of one training run; the defaults and ranges of the user's settings are
    those of :data:`gfbgcn.text.params.PARAMETERS` (``seed``: ``random_state``)."""

    model: str = DEFAULTS["model"]
    seed: int = DEFAULTS["random_state"]
    hidden: int = DEFAULTS["hidden"]
    dropout: float = DEFAULTS["dropout"]
    lr: float = DEFAULTS["lr"]
    weight_decay: float = DEFAULTS["weight_decay"]
    epochs: int = DEFAULTS["epochs"]
    patience: int = DEFAULTS["patience"]
    val_ratio: float = DEFAULTS["val_ratio"]
    train_lambda: bool = True  # False freezes GFB's lambda at lambda_init (ablation)
    monitor: str = "loss"  # early stopping on validation "loss" (paper, Parameters) or "accuracy"
    layer_options: dict[str, Any] = field(default_factory=dict)
    batch_size: int = DEFAULTS["batch_size"]  # > 0: mini-batch training (text/train/minibatch.py)
    fanout: int = DEFAULTS["fanout"]  # mini-batch: sampled layer-1 neighbours per node
    row_budget: int = DEFAULTS["row_budget"]  # mini-batch: > 0 caps the W1 rows of a step
    features: str = DEFAULTS["features"]  # "onehot" (paper) or "wordllama" (features.py)
    optimizer: str = DEFAULTS["optimizer"]  # or "sparse-adam": row-sparse W1 (optim.py)
    #: None, "balanced" or {label name: weight}: the loss's class weights (corpus/weights.py)
    class_weight: ClassWeight = DEFAULTS["class_weight"]

    def __post_init__(self) -> None:
        self._check_program_settings()  # ValueError: set by code, not by a user
        check_model(self.model)  # OptionError from here on: the user's settings
        self.class_weight = check_class_weight(self.class_weight)  # a dict's keys: names
        check_train_settings(self)
        check_optimizer(self, WHOLE_MODELS)
        check_features_fit(self)

    def _check_program_settings(self) -> None:
        """The settings only code sets (early stopping's monitor): a bad one is a programming
        error."""
        if self.monitor not in ("loss", "accuracy"):
            raise ValueError(f"monitor must be 'loss' or 'accuracy', got {self.monitor!r}")


@dataclass
class TrainResult:
    config: TrainConfig
    test: dict[str, Any] | None  # None: no labelled test document, nothing scored
    val: dict[str, Any]
    best_epoch: int
    epochs_run: int
    seconds_per_epoch: float
    train_seconds: float
    peak_rss_mib: float
    history: list[dict[str, float]]
    model: torch.nn.Module
    probabilities: np.ndarray  # [num_docs, C] softmax (multi-label: sigmoid) outputs
    threshold: float | None = None  # multi-label: decision threshold chosen on validation
    lam: float | None = None  # GFB models: lambda of the kept (best-validation) weights
    gin_eps: list[float] | None = None  # Text GIN: eps per layer of the kept weights
    device: str = "cpu"  # where it trained, as device_name() writes it

    def record(self) -> dict[str, Any]:
        """JSON-serialisable summary (no weights)."""
        return {
            "config": asdict(self.config),
            "test": self.test,
            "val": self.val,
            "best_epoch": self.best_epoch,
            "epochs_run": self.epochs_run,
            "seconds_per_epoch": self.seconds_per_epoch,
            "train_seconds": self.train_seconds,
            "peak_rss_mib": self.peak_rss_mib,
            **({"threshold": self.threshold} if self.threshold is not None else {}),
            **({"lambda": self.lam} if self.lam is not None else {}),
            **({"gin_eps": self.gin_eps} if self.gin_eps is not None else {}),
            "device": self.device,
            "versions": package_versions(),
            "machine": machine_info(),
        }

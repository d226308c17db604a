"""The settings of a training run and what it returns."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import torch

from gfbgcn.core.errors import OptionError
from gfbgcn.core.runinfo import machine_info, package_versions
from gfbgcn.text.train.checks import check_train_settings
from gfbgcn.text.train.features import check_features_fit
from gfbgcn.text.train.models import WHOLE_MODELS, check_model
from gfbgcn.text.train.optim import check_optimizer


@dataclass
class TrainConfig:
    model: str = "gfb-max"
    seed: int = 0
    hidden: int = 200
    dropout: float = 0.5
    lr: float = 0.02
    weight_decay: float = 0.0
    epochs: int = 200
    patience: int = 10
    val_ratio: float = 0.1
    train_lambda: bool = True  # False freezes GFB's lambda at lambda_init (ablation)
    monitor: str = "loss"  # early stopping on validation "loss" (paper, Parameters) or "accuracy"
    layer_options: dict[str, Any] = field(default_factory=dict)
    batch_size: int = 0  # > 0: mini-batch training on sampled subgraphs (text/train/minibatch.py)
    fanout: int = 32  # mini-batch: sampled layer-1 neighbours per node (text/train/sampler.py)
    row_budget: int = 0  # mini-batch: > 0 caps the W1 rows of a step (text/train/row_budget.py)
    features: str = "onehot"  # input: "onehot" (paper) or "wordllama" (text/train/features.py)
    optimizer: str = "adam"  # or "sparse-adam": row-sparse W1 in mini-batch (text/train/optim.py)

    def __post_init__(self) -> None:
        if self.monitor not in ("loss", "accuracy"):
            raise ValueError(f"monitor must be 'loss' or 'accuracy', got {self.monitor!r}")
        check_model(self.model)
        if self.batch_size and self.model in WHOLE_MODELS:
            raise OptionError("{0} supports the two-layer models, not {model}", "batch_size",
                              model=self.model)
        if self.row_budget and not self.batch_size:
            raise OptionError("{0} applies only with {1}: add {1}, or drop {0}", "row_budget",
                              "batch_size")
        check_train_settings(self)
        check_optimizer(self, WHOLE_MODELS)
        check_features_fit(self)


@dataclass
class TrainResult:
    config: TrainConfig
    test: dict[str, Any]
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

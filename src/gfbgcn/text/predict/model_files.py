"""Reading a saved model directory safely: its configuration, files, digests and tensors.

Every check that a load makes before building the predictor: the configuration against
:mod:`gfbgcn.text.predict.model_schema`, its ``config_sha256``, the sha256 of the weights and
the vocabulary, package versions, and each tensor's shape and dtype. Each failure is a
:class:`~gfbgcn.core.errors.ModelLoadError` naming the file and the problem.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import torch
from safetensors import SafetensorError
from safetensors.torch import load_file

from gfbgcn.core.errors import ModelLoadError
from gfbgcn.core.io import json_digest, sha256_file
from gfbgcn.core.runinfo import package_versions
from gfbgcn.text.predict.model_schema import (
    CONFIG,
    FORMAT,
    FORMAT_VERSION,
    validate_config,
)

# A different major version of these packages is incompatible; any other difference warns.
_CHECKED_PACKAGES = ("gfbgcn", "torch", "torch_geometric")


class VersionMismatchWarning(UserWarning):
    """The model was saved with different (compatible) package versions."""


def _major(version: str) -> str:
    return version.split(".")[0]


def check_versions(saved: dict[str, str], path: Path) -> None:
    """Fail on a different major version of gfbgcn/torch/torch_geometric; warn on others."""
    current = package_versions()
    differ = []
    for name, then in sorted(saved.items()):
        now = current.get(name)
        if now is None or then == now or "not installed" in (then, now):
            continue
        if name in _CHECKED_PACKAGES and _major(then) != _major(now):
            raise ModelLoadError(
                f"{path}: saved with {name} {then}, incompatible with the installed {now} "
                "(different major version); install a matching version or retrain"
            )
        differ.append(f"{name} {then} -> {now}")
    if differ:
        warnings.warn(
            f"{path}: saved with other package versions ({', '.join(differ)}); outputs may "
            "differ slightly",
            VersionMismatchWarning,
            stacklevel=3,
        )


def read_checked_config(path: Path) -> dict[str, Any]:
    """The ``config.json`` of model directory ``path``, checked against the schema and its
    own digest."""
    if not path.is_dir():
        raise ModelLoadError(f"{path}: no such model directory")
    cfg_path = path / CONFIG
    if not cfg_path.is_file():
        raise ModelLoadError(
            f"{path}: {CONFIG} is missing; the directory is not a saved gfbgcn model or its "
            "save was interrupted (save again with gfbgcn train ... --save)"
        )
    try:
        config = json.loads(cfg_path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ModelLoadError(f"{cfg_path}: unreadable ({err})") from err
    if not isinstance(config, dict) or config.get("format") != FORMAT:
        raise ModelLoadError(f"{cfg_path}: not a gfbgcn text model configuration")
    version = config.get("format_version")
    if version != FORMAT_VERSION:
        raise ModelLoadError(
            f"{path}: model format version {version!r}, this gfbgcn reads version "
            f"{FORMAT_VERSION}; use the gfbgcn version that saved it, or retrain"
        )
    validate_config(config, cfg_path)
    check_config_digest(config, cfg_path)
    return config


def check_config_digest(config: dict[str, Any], cfg_path: Path) -> None:
    """``config_sha256`` must match the other fields: an edited label name or setting is
    refused (the schema has already refused a configuration without it)."""
    expected = config["config_sha256"]
    rest = {k: v for k, v in config.items() if k != "config_sha256"}
    if json_digest(rest) != expected:
        raise ModelLoadError(f"{cfg_path}: checksum mismatch, the configuration was modified "
                             "after saving (save the model again with gfbgcn train ... --save)")


def checked_file(path: Path, name: str, config: dict[str, Any]) -> Path:
    file = path / name
    if not file.is_file():
        raise ModelLoadError(f"{path}: {name} is missing (incomplete model directory)")
    if sha256_file(file) != config["sha256"][name]:
        raise ModelLoadError(
            f"{file}: checksum mismatch, the file is corrupt or was modified after saving"
        )
    return file


def check_tensors(tensors: dict[str, torch.Tensor], config: dict[str, Any], v: int,
                   weights: Path, path: Path) -> None:
    """Every tensor present, with the shape the configuration and the vocabulary imply."""
    required = ("w1_words", "h_words", "deg_words", "w1_doc_mean", "idf", "prior")
    missing = [k for k in required if k not in tensors]
    if missing:
        raise ModelLoadError(f"{weights}: tensors missing: {missing}")
    for name, shape in config["shapes"].items():
        if name not in tensors:
            raise ModelLoadError(f"{weights}: tensor {name!r} missing")
        if list(tensors[name].shape) != list(shape):
            raise ModelLoadError(
                f"{weights}: tensor {name!r} has shape {list(tensors[name].shape)}, "
                f"the configuration says {shape}"
            )
    m, labels = config["model"], config["labels"]
    hidden, c = int(m["hidden"]), int(m["num_classes"])
    if len(labels["names"]) != c:
        raise ModelLoadError(f"{path}: {len(labels['names'])} label names for {c} classes")
    for name, shape in (("w1_words", [v, hidden]), ("h_words", [v, hidden]), ("deg_words", [v]),
                        ("idf", [v]), ("prior", [c]), ("w1_doc_mean", [hidden])):
        if list(tensors[name].shape) != shape:
            raise ModelLoadError(
                f"{path}: {name} has shape {list(tensors[name].shape)}, expected {shape} "
                f"(vocabulary of {v} words, hidden {hidden}, {c} classes)"
            )
    check_dtypes(tensors, m["dtype"], weights)


def check_dtypes(tensors: dict[str, torch.Tensor], dtype: str, weights: Path) -> None:
    """The word tables in the model's dtype, IDF and prior in float64, every other tensor
    floating: a re-signed file of the wrong dtype is refused here, not inside ``predict``."""
    expected = {"w1_words": dtype, "h_words": dtype, "w1_doc_mean": dtype,
                "idf": "float64", "prior": "float64"}
    for name, tensor in tensors.items():
        have = str(tensor.dtype).replace("torch.", "")
        want = expected.get(name)
        if (want is not None and have != want) or not tensor.is_floating_point():
            raise ModelLoadError(f"{weights}: tensor {name!r} has dtype {have}, expected "
                                 f"{want or 'a floating dtype'}")


def read_vocabulary(vocab_file: Path) -> list[str]:
    """``vocab.json``: a JSON list of strings (word ``i`` is row ``i`` of every table)."""
    try:
        vocab = json.loads(vocab_file.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ModelLoadError(f"{vocab_file}: unreadable vocabulary ({err})") from err
    if not isinstance(vocab, list) or not all(isinstance(w, str) for w in vocab):
        raise ModelLoadError(f"{vocab_file}: the vocabulary must be a JSON list of strings")
    return vocab


def read_tensors(weights: Path) -> dict[str, torch.Tensor]:
    """The safetensors file, read on the CPU."""
    try:
        return load_file(str(weights), device="cpu")
    except (SafetensorError, OSError, ValueError) as err:
        raise ModelLoadError(f"{weights}: corrupt weights file ({err})") from err

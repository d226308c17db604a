"""Reading a saved model directory safely: its configuration, files, digests and tensors.

Every check that a load makes before building the predictor: the configuration against
:mod:`gfbgcn.text.predict.model_schema`, its ``config_sha256``, the sha256 of the weights and
the vocabulary, package versions, and each tensor's shape and dtype. Each failure is a
:class:`~gfbgcn.core.errors.ModelLoadError` naming the file and the problem.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import torch
from safetensors import SafetensorError
from safetensors.torch import load_file

from gfbgcn.core.errors import ModelLoadError
from gfbgcn.core.io import json_digest, read_json, sha256_file
from gfbgcn.core.paths.inputs import check_directory, is_regular_file
from gfbgcn.core.runinfo import package_versions
from gfbgcn.text.predict.model_schema import (
    CONFIG,
    TABLE_DTYPES,
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
    if not check_directory(path, error=ModelLoadError):
        raise ModelLoadError(f"{path}: no such model directory")
    cfg_path = path / CONFIG
    if not is_regular_file(cfg_path, error=ModelLoadError):
        raise ModelLoadError(
            f"{path}: {CONFIG} is missing; the directory is not a saved gfbgcn model or its "
            "save was interrupted (save again with gfbgcn train ... --save)"
        )
    try:
        config = read_json(cfg_path)
    except (OSError, ValueError) as err:
        raise ModelLoadError(f"{cfg_path}: unreadable ({err})") from err
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
    if not is_regular_file(file, error=ModelLoadError):
        raise ModelLoadError(f"{path}: {name} is missing (incomplete model directory)")
    if sha256_file(file) != config["sha256"][name]:
        raise ModelLoadError(
            f"{file}: checksum mismatch, the file is corrupt or was modified after saving"
        )
    return file


def check_tensors(tensors: dict[str, torch.Tensor], config: dict[str, Any], v: int,
                  weights: Path, path: Path,
                  layer_state: dict[str, torch.Tensor] | None = None) -> None:
    """Every tensor present, with the shape the configuration and the vocabulary imply, the
    dtype the loader will compute in (:func:`check_dtypes`) and values a prediction can use
    (:func:`check_values`).

    ``layer_state``: the state dict of the second layer built afresh from the configuration;
    the saved ``conv2.*`` tensors must have its entries' kinds (an integer buffer stays
    integer)."""
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
    hidden, c = int(m["hidden"]), int(m["num_classes"])  # one per label name (the schema)
    for name, shape in (("w1_words", [v, hidden]), ("h_words", [v, hidden]), ("deg_words", [v]),
                        ("idf", [v]), ("prior", [c]), ("w1_doc_mean", [hidden])):
        if list(tensors[name].shape) != shape:
            raise ModelLoadError(
                f"{path}: {name} has shape {list(tensors[name].shape)}, expected {shape} "
                f"(vocabulary of {v} words, hidden {hidden}, {c} classes)"
            )
    if layer_state is not None:
        check_layer_state(tensors, layer_state, weights)
    check_dtypes(tensors, m["dtype"], weights, layer_state)
    check_values(tensors, bool(labels["multi_label"]), weights)


def check_layer_state(tensors: dict[str, torch.Tensor], layer_state: dict[str, torch.Tensor],
                      weights: Path) -> None:
    """The saved ``conv2.*`` tensors are exactly the entries of the second layer the
    configuration describes, each of its shape (checked before that layer is allocated)."""
    saved = {k[len("conv2."):] for k in tensors if k.startswith("conv2.")}
    missing, extra = sorted(set(layer_state) - saved), sorted(saved - set(layer_state))
    if missing or extra:
        raise ModelLoadError(f"{weights}: the second layer's tensors do not fit the "
                             f"configuration's model (missing: {missing}, unexpected: {extra})")
    for name, ref in layer_state.items():
        have = list(tensors[f"conv2.{name}"].shape)
        if have != list(ref.shape):
            raise ModelLoadError(f"{weights}: tensor 'conv2.{name}' has shape {have}, the "
                                 f"configuration's model.layer_options give {list(ref.shape)}")


def expected_dtypes(tensors: dict[str, torch.Tensor], dtype: str,
                    layer_state: dict[str, torch.Tensor] | None = None) -> dict[str, str]:
    """The dtype each saved tensor must have, the one rule :func:`_write_files` follows when it
    saves and the loader relies on when it computes: the word tables, the word degrees and
    the second layer's floating entries in the model's dtype (``model.dtype``), IDF and prior
    in float64, and the second layer's integer buffers (e.g. CBP's hash indices) in the dtype
    the layer itself gives them.  Tensors the loader does not compute with directly
    (pretrained feature tables) may have any of the table dtypes: ``""`` here."""
    expected = {"w1_words": dtype, "h_words": dtype, "w1_doc_mean": dtype, "deg_words": dtype,
                "idf": "float64", "prior": "float64"}
    for name in tensors:
        if not name.startswith("conv2."):
            continue
        ref = (layer_state or {}).get(name[len("conv2."):])
        if ref is not None and not ref.is_floating_point():
            expected[name] = _dtype_name(ref)
        else:
            expected[name] = dtype
    return expected


def _dtype_name(tensor: torch.Tensor) -> str:
    return str(tensor.dtype).replace("torch.", "")


def check_dtypes(tensors: dict[str, torch.Tensor], dtype: str, weights: Path,
                 layer_state: dict[str, torch.Tensor] | None = None) -> None:
    """Each tensor in the dtype :func:`expected_dtypes` gives it: a re-signed file of another
    dtype is refused here, not inside ``predict``."""
    expected = expected_dtypes(tensors, dtype, layer_state)
    for name, tensor in tensors.items():
        have = _dtype_name(tensor)
        want = expected.get(name)
        if want is None and have not in TABLE_DTYPES:
            want = f"one of {', '.join(TABLE_DTYPES)}"
        elif want is None or have == want:
            continue
        raise ModelLoadError(f"{weights}: tensor {name!r} has dtype {have}, expected {want}")


def check_values(tensors: dict[str, torch.Tensor], multi_label: bool, weights: Path) -> None:
    """Values a prediction can use: every floating tensor finite, IDF >= 0, word degrees > 0
    (their inverse square roots scale the edges), and the prior a probability vector (one
    probability per label for a multi-label model).  A NaN weight would otherwise give NaN
    probabilities and arbitrary labels without a word."""
    for name, tensor in tensors.items():
        if tensor.is_floating_point() and not bool(torch.isfinite(tensor).all()):
            raise ModelLoadError(f"{weights}: tensor {name!r} holds non-finite values "
                                 "(NaN or infinity)")
    if bool((tensors["idf"] < 0).any()):
        raise ModelLoadError(f"{weights}: tensor 'idf' holds negative values")
    if bool((tensors["deg_words"] <= 0).any()):
        raise ModelLoadError(f"{weights}: tensor 'deg_words' holds degrees <= 0")
    prior = tensors["prior"]
    if bool(((prior < 0) | (prior > 1)).any()):
        raise ModelLoadError(f"{weights}: tensor 'prior' holds values outside [0, 1]")
    if not multi_label and abs(float(prior.sum()) - 1.0) > 1e-6:
        raise ModelLoadError(f"{weights}: tensor 'prior' sums to {float(prior.sum()):.6g}, "
                             "not 1 (not a probability vector)")


def read_vocabulary(vocab_file: Path) -> list[str]:
    """``vocab.json``: a JSON list of strings (word ``i`` is row ``i`` of every table)."""
    try:
        vocab = read_json(vocab_file)
    except (OSError, ValueError) as err:
        raise ModelLoadError(f"{vocab_file}: unreadable vocabulary ({err})") from err
    if not isinstance(vocab, list) or not all(isinstance(w, str) for w in vocab):
        raise ModelLoadError(f"{vocab_file}: the vocabulary must be a JSON list of strings")
    first: dict[str, int] = {}
    for i, word in enumerate(vocab):
        # a repeated word would give two rows to one token: which one a document uses is
        # arbitrary, so such a file was not written by gfbgcn
        j = first.setdefault(word, i)
        if j != i:
            raise ModelLoadError(f"{vocab_file}: word {word!r} repeats (entries {j} and {i})")
    return vocab


def read_tensors(weights: Path) -> dict[str, torch.Tensor]:
    """The safetensors file, read on the CPU, each tensor in memory of its own."""
    try:
        tensors = load_file(str(weights), device="cpu")
    except (SafetensorError, OSError, ValueError) as err:
        raise ModelLoadError(f"{weights}: corrupt weights file ({err})") from err
    # A tensor read by safetensors may start at any byte of the file's buffer, and a float32
    # matrix product on memory not aligned to 64 bytes takes another kernel path that rounds
    # differently (a loaded model's probabilities differed from the fitted one's by 2e-6
    # relative on an AMD EPYC); a copy is aligned, so a loaded model answers to the bit.
    return {name: t if t.data_ptr() % 64 == 0 else t.clone() for name, t in tensors.items()}

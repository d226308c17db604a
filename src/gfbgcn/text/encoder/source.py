"""Where an encoder's files are and what they say: a directory, its layout and its checks.

An encoder is named by a local directory or by a model name that the user's own Hugging Face
cache resolves (downloaded only when asked and the environment is not offline).  Two layouts
are read:

- **sentence-transformers**: ``modules.json`` lists a Transformer module (the transformers
  files, in the directory itself or a sub-folder), a Pooling module (``1_Pooling/config.json``:
  which pooling) and optionally Normalize; ``sentence_bert_config.json`` holds the token budget
  (``max_seq_length``) and whether texts are lower-cased first.  Any other module (a Dense
  projection, say) is refused in one line rather than silently skipped, since skipping it would
  give other vectors than the model's authors meant.
- **plain transformers** (``config.json``, weights, tokenizer files): mean pooling, normalised
  (see :func:`read_layout`).

Every problem is one :class:`EncoderLoadError` line naming the directory.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gfbgcn.core.errors import ModelLoadError, one_line
from gfbgcn.core.extras import require
from gfbgcn.core.io import read_json
from gfbgcn.core.paths.inputs import check_directory, check_entries
from gfbgcn.text.encoder.pooling import POOLINGS

__all__ = ["EXTRA", "PURPOSE", "EncoderLoadError", "Layout", "read_layout", "resolve_directory"]

#: The optional extra that installs transformers, and what needs it (the missing-extra line).
EXTRA = "encoders"
PURPOSE = "--encoder"

#: What a Hugging Face model name looks like (``org/name`` or ``name``); anything else that is
#: not an existing path is only a missing directory.
_REPO_ID = re.compile(r"[A-Za-z0-9][\w.-]*(/[\w.-]+)?")
#: Weight files transformers reads (one of them must be there).
WEIGHTS = ("model.safetensors", "model.safetensors.index.json", "pytorch_model.bin",
           "pytorch_model.bin.index.json")
#: Tokenizer vocabularies (one of them must be there): a fast tokenizer's tokenizer.json, or
#: the files transformers converts into one (WordPiece, BPE, SentencePiece).
VOCABULARIES = ("tokenizer.json", "vocab.txt", "vocab.json", "spiece.model",
                "sentencepiece.bpe.model")
#: The files whose bytes determine the embeddings, and so the identity's digest; a README or
#: an ONNX export beside them does not.
_DIGEST_NAMES = frozenset({
    "config.json", "modules.json", "sentence_bert_config.json", "tokenizer.json",
    "tokenizer_config.json", "special_tokens_map.json", "added_tokens.json", "vocab.txt",
    "vocab.json", "merges.txt", "model.safetensors.index.json", "pytorch_model.bin.index.json",
})
_DIGEST_PATTERNS = ("*.safetensors", "pytorch_model*.bin", "*.model")
#: sentence-transformers' pooling flags, and the name each means here (None: not supported).
_POOLING_FLAGS = {"pooling_mode_mean_tokens": "mean", "pooling_mode_cls_token": "cls",
                  "pooling_mode_max_tokens": "max", "pooling_mode_mean_sqrt_len_tokens": None,
                  "pooling_mode_weightedmean_tokens": None, "pooling_mode_lasttoken": None}


class EncoderLoadError(ModelLoadError):
    """An encoder that cannot be used: a missing or incomplete directory, an unknown name, a
    model that is not an encoder, unreadable files (one line naming the path)."""


@dataclass(frozen=True)
class Layout:
    """What an encoder directory holds.

    Attributes:
        root: the directory as resolved (a sentence-transformers folder or a transformers one).
        transformer: the folder of config.json, the weights and the tokenizer.
        pooling: ``mean``, ``cls`` or ``max``.
        normalize: whether document vectors are scaled to unit length.
        max_seq_length: the token budget the model was trained with, where it says one.
        lowercase: whether texts are lower-cased before tokenizing (sentence-transformers'
            ``do_lower_case``).
        files: the files that determine the output, relative to ``root`` (sorted).
    """

    root: Path
    transformer: Path
    pooling: str
    normalize: bool
    max_seq_length: int | None
    lowercase: bool
    files: tuple[str, ...]


def _offline() -> bool:
    """The environment forbids hub traffic (``HF_HUB_OFFLINE`` / ``TRANSFORMERS_OFFLINE``)."""
    return any(os.environ.get(v, "").strip().upper() in {"1", "ON", "YES", "TRUE"}
               for v in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"))


def resolve_directory(name_or_path: str | os.PathLike[str], *, allow_download: bool) -> Path:
    """The local directory of encoder ``name_or_path``: the path itself when it exists, else
    a model name looked up in the user's Hugging Face cache (a bare name also as
    ``sentence-transformers/NAME``, as sentence-transformers does), downloaded only when
    ``allow_download`` and not offline."""
    path = Path(name_or_path).expanduser()
    if check_directory(path, f"encoder {path}", EncoderLoadError):
        return path
    text = str(name_or_path)
    if not _REPO_ID.fullmatch(text):
        raise EncoderLoadError(f"encoder {text}: no such directory")
    hub = require("huggingface_hub", EXTRA, PURPOSE)
    repos = [text] if "/" in text else [text, f"sentence-transformers/{text}"]
    for repo in repos:
        try:
            return Path(hub.snapshot_download(repo, local_files_only=True))
        except (OSError, ValueError):  # not cached (LocalEntryNotFoundError), a bad id
            continue
    where = "no such directory, and no model of that name in the Hugging Face cache"
    if not allow_download:
        raise EncoderLoadError(f"encoder {text}: {where} (allow a download to fetch it once)")
    if _offline():
        raise EncoderLoadError(f"encoder {text}: {where}, and downloads are off "
                               "(HF_HUB_OFFLINE or TRANSFORMERS_OFFLINE is set)")
    return _download(hub, text, repos)


def _download(hub: Any, text: str, repos: list[str]) -> Path:
    """Fetch the files an encoder needs (safetensors weights only: no pickled weights, no ONNX
    or other exports) from the first of ``repos`` that exists."""
    problem = "not found"
    for repo in repos:
        try:
            return Path(hub.snapshot_download(
                repo, allow_patterns=["*.json", "*.safetensors", "*.txt", "*.model"]))
        except Exception as err:  # noqa: BLE001 - hub and network errors: one line below
            problem = one_line(f"{type(err).__name__}: {err}")
    raise EncoderLoadError(f"encoder {text}: download failed ({problem})")


def _json_object(root: Path, path: Path) -> dict[str, Any] | list[Any]:
    try:
        data = read_json(path)
    except (OSError, ValueError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else err
        raise EncoderLoadError(f"encoder {root}: cannot read {path.relative_to(root)} "
                               f"({one_line(str(reason))})") from None
    if not isinstance(data, (dict, list)):
        raise EncoderLoadError(f"encoder {root}: {path.relative_to(root)} is not a JSON object")
    return data


def _check_entries(root: Path, folder: Path) -> None:
    """Every file of ``folder`` is a regular one: transformers opens files of its own choosing
    there, and a named pipe among them would block it forever."""
    where = "" if folder == root else f" ({folder.relative_to(root)})"
    check_entries(folder, f"encoder {root}{where}", EncoderLoadError)


def _check_transformer_files(root: Path, folder: Path) -> None:
    """config.json, weights and a tokenizer are all there (each missing one is a line)."""
    where = "" if folder == root else f" ({folder.relative_to(root)})"
    if not (folder / "config.json").is_file():
        raise EncoderLoadError(f"encoder {root}{where}: no config.json (not a transformers or "
                               "sentence-transformers model directory)")
    if not any((folder / name).is_file() for name in WEIGHTS):
        raise EncoderLoadError(f"encoder {root}{where}: no weights (expected one of "
                               f"{', '.join(WEIGHTS)})")
    if not any((folder / name).is_file() for name in VOCABULARIES):
        raise EncoderLoadError(f"encoder {root}{where}: no tokenizer (expected one of "
                               f"{', '.join(VOCABULARIES)})")


def _pooling(root: Path, path: Path) -> str:
    """The one pooling a sentence-transformers Pooling config turns on."""
    config = _json_object(root, path)
    if not isinstance(config, dict):
        raise EncoderLoadError(f"encoder {root}: {path.relative_to(root)} is not an object")
    if isinstance(config.get("pooling_mode"), str):  # a newer spelling: the mode by name
        modes = names = [config["pooling_mode"]]
    else:
        modes = [flag for flag in _POOLING_FLAGS if config.get(flag) is True]
        names = [_POOLING_FLAGS[flag] for flag in modes]
    if len(names) != 1 or names[0] not in POOLINGS:
        found = ", ".join(modes) or "none"
        raise EncoderLoadError(f"encoder {root}: pooling {found} is not supported (one of "
                               f"{', '.join(POOLINGS)})")
    return str(names[0])


def _modules(root: Path) -> tuple[Path, Path, str, bool]:
    """The transformer and pooling folders, the pooling and whether it normalises, from
    modules.json."""
    modules = _json_object(root, root / "modules.json")
    if not isinstance(modules, list) or not all(isinstance(m, dict) for m in modules):
        raise EncoderLoadError(f"encoder {root}: modules.json is not a list of modules")
    kinds = [str(m.get("type", "")).rpartition(".")[2] for m in modules]
    unsupported = [k for k in kinds if k not in ("Transformer", "Pooling", "Normalize")]
    if unsupported:
        raise EncoderLoadError(f"encoder {root}: module {unsupported[0] or '(no type)'} is not "
                               "supported (only Transformer, Pooling and Normalize)")
    if kinds[:2] != ["Transformer", "Pooling"] or kinds[2:] not in ([], ["Normalize"]):
        raise EncoderLoadError(f"encoder {root}: modules {' -> '.join(kinds) or '(none)'} are "
                               "not Transformer -> Pooling [-> Normalize]")
    folders = [(root / str(m.get("path", ""))).resolve() for m in modules[:2]]
    if not all(f == root.resolve() or root.resolve() in f.parents for f in folders):
        raise EncoderLoadError(f"encoder {root}: modules.json points outside the directory")
    transformer, pooling = (root / str(m.get("path", "")) for m in modules[:2])
    return transformer, pooling, _pooling(root, pooling / "config.json"), len(kinds) == 3


def _digest_files(root: Path, folders: list[Path]) -> tuple[str, ...]:
    """The output-determining files in ``folders``, relative to ``root``, sorted."""
    found: set[str] = set()
    for folder in folders:
        for entry in folder.iterdir():
            if entry.is_file() and (entry.name in _DIGEST_NAMES
                                    or any(entry.match(p) for p in _DIGEST_PATTERNS)):
                found.add(entry.relative_to(root).as_posix())
    return tuple(sorted(found))


def read_layout(root: Path) -> Layout:
    """The layout of encoder directory ``root`` (its files checked to be there).

    A plain transformers directory gets mean pooling over the attention mask and unit length:
    that is what sentence-transformers itself does with a checkpoint that has no pooling
    config, so both loaders agree on such a model, and unit vectors make every document's
    embedding one known scale (cosine similarity is the dot product) wherever they are used
    beside other features.
    """
    try:
        _check_entries(root, root)
        if not (root / "modules.json").is_file():
            _check_transformer_files(root, root)
            return Layout(root, root, "mean", True, None, False, _digest_files(root, [root]))
        transformer, pool_dir, pooling, normalize = _modules(root)
        _check_entries(root, transformer)
        _check_transformer_files(root, transformer)
        st_config: dict[str, Any] | list[Any] = {}
        if (transformer / "sentence_bert_config.json").is_file():
            st_config = _json_object(root, transformer / "sentence_bert_config.json")
        if not isinstance(st_config, dict):
            raise EncoderLoadError(f"encoder {root}: sentence_bert_config.json is not an object")
        max_seq = st_config.get("max_seq_length")
        if max_seq is not None and (not isinstance(max_seq, int) or isinstance(max_seq, bool)
                                    or max_seq < 1):
            raise EncoderLoadError(f"encoder {root}: max_seq_length {max_seq!r} in "
                                   "sentence_bert_config.json is not a token count")
        folders = dict.fromkeys(f.resolve() for f in (root, transformer, pool_dir))
        files = _digest_files(root.resolve(), list(folders))
        return Layout(root, transformer, pooling, normalize, max_seq,
                      st_config.get("do_lower_case") is True, files)
    except PermissionError as err:
        raise EncoderLoadError(f"encoder {root}: cannot read {err.filename} "
                               f"({err.strerror})") from None

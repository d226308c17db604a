"""Loading a frozen sentence encoder from local files, with transformers.

transformers is used directly (``AutoTokenizer``'s fast tokenizer and ``AutoModel``), not
sentence-transformers: one code path for both directory layouts, and the token-level control
that long documents need (windows of the tokenizer's own template, :mod:`.windows`).  Only
encoders are taken: a decoder-only or encoder-decoder model is refused before its weights are
read, and no remote code is ever run.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import Any

import torch

from gfbgcn.core.device import resolve_device
from gfbgcn.core.errors import one_line
from gfbgcn.core.extras import require
from gfbgcn.core.io import read_json
from gfbgcn.core.validate import check_choice, check_option
from gfbgcn.text.encoder.embed import SentenceEncoder
from gfbgcn.text.encoder.identity import (
    LONG_DOCUMENT_MODES,
    TRUNCATE,
    EncoderIdentity,
    files_digest,
)
from gfbgcn.text.encoder.source import (
    EXTRA,
    PURPOSE,
    EncoderLoadError,
    Layout,
    read_layout,
    resolve_directory,
)

__all__ = ["DEFAULT_LONG_DOCUMENTS", "DEFAULT_MAX_CHUNKS", "load_encoder"]

#: How documents longer than the token budget are embedded: the first ``max_length`` tokens
#: (``truncate``) or the mean of up to ``max_chunks`` windows (``chunks``).  Truncation until a
#: measurement on the shared corpora says otherwise.
DEFAULT_LONG_DOCUMENTS = TRUNCATE
#: The most windows of a document in ``chunks`` mode: bounds the cost of a very long document
#: at eight times a short one.
DEFAULT_MAX_CHUNKS = 8
#: The longest budget taken from a model's position table when nothing smaller is set: the
#: length BERT-style encoders are pretrained at.
_MAX_POSITIONS = 512


@contextlib.contextmanager
def _quiet(transformers: Any) -> Iterator[None]:
    """transformers' loading progress bars and warnings off (restored after): missing or
    unexpected weights are checked here and reported in one line instead."""
    logging = transformers.utils.logging
    verbosity, bars = logging.get_verbosity(), logging.is_progress_bar_enabled()
    logging.set_verbosity_error()
    logging.disable_progress_bar()
    try:
        yield
    finally:
        logging.set_verbosity(verbosity)
        if bars:
            logging.enable_progress_bar()


def _check_encoder_config(transformers: Any, layout: Layout) -> dict[str, Any]:
    """config.json as an object, refused unless it describes an encoder that transformers
    knows (a model type with a masked-language-model head: BERT, RoBERTa, MPNet, ...)."""
    root = layout.root
    try:
        config = read_json(layout.transformer / "config.json")
    except (OSError, ValueError) as err:
        raise EncoderLoadError(f"encoder {root}: cannot read config.json "
                               f"({one_line(str(err))})") from None
    if not isinstance(config, dict):
        raise EncoderLoadError(f"encoder {root}: config.json is not a JSON object")
    kind = config.get("model_type")
    auto = transformers.models.auto.modeling_auto
    if config.get("is_decoder") or config.get("is_encoder_decoder"):
        what = "an encoder-decoder" if config.get("is_encoder_decoder") else "a decoder"
        raise EncoderLoadError(f"encoder {root}: model type {kind} is {what} model, not an "
                               "encoder (BERT, RoBERTa, MPNet, ...)")
    if kind not in auto.MODEL_FOR_MASKED_LM_MAPPING_NAMES:
        raise EncoderLoadError(f"encoder {root}: model type {kind!r} is not an encoder "
                               "transformers knows (decoder-only models are not supported; "
                               "use an encoder such as BERT, RoBERTa or MPNet)")
    return config


def _tokenizer(transformers: Any, layout: Layout, vocab_size: int) -> Any:
    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(
            str(layout.transformer), local_files_only=True, trust_remote_code=False)
    except Exception as err:  # noqa: BLE001 - any failure of a tokenizer's files: one line
        raise EncoderLoadError(f"encoder {layout.root}: cannot load the tokenizer "
                               f"({one_line(f'{type(err).__name__}: {err}')})") from None
    if not getattr(tokenizer, "is_fast", False):
        raise EncoderLoadError(f"encoder {layout.root}: the tokenizer is not a fast "
                               "(tokenizers) one, which long documents need")
    if vocab_size and len(tokenizer) > vocab_size:
        raise EncoderLoadError(f"encoder {layout.root}: the tokenizer has {len(tokenizer)} "
                               f"tokens, the model's vocabulary {vocab_size}")
    return tokenizer


def _model(transformers: Any, layout: Layout) -> tuple[torch.nn.Module, int]:
    """The transformer in float32, eval mode, without gradients, and its hidden size; every
    weight it uses read from the files (the pooler, which pooling here never uses, may be
    absent)."""
    try:
        model, info = transformers.AutoModel.from_pretrained(
            str(layout.transformer), local_files_only=True, trust_remote_code=False,
            output_loading_info=True)
    except Exception as err:  # noqa: BLE001 - corrupt weights, a config it cannot build
        raise EncoderLoadError(f"encoder {layout.root}: cannot load the model "
                               f"({one_line(f'{type(err).__name__}: {err}')})") from None
    missing = sorted(k for k in info.get("missing_keys", ()) if not k.startswith("pooler."))
    mismatched = sorted(str(k) for k in info.get("mismatched_keys", ()))
    if missing or mismatched:
        bad = (missing or mismatched)[0]
        raise EncoderLoadError(f"encoder {layout.root}: the weights do not fit config.json "
                               f"({len(missing) + len(mismatched)} tensors missing or of "
                               f"another shape, e.g. {bad})")
    model = model.float().eval()
    model.requires_grad_(False)
    return model, int(model.config.hidden_size)


def _budget(layout: Layout, config: dict[str, Any], tokenizer: Any,
            max_length: int | None) -> int:
    """Tokens per sequence: ``max_length`` when given (checked against what the model can
    take), else the model's own ``max_seq_length``, else its position table up to 512."""
    limits = [int(config.get("max_position_embeddings") or _MAX_POSITIONS)]
    if 0 < getattr(tokenizer, "model_max_length", 0) < 1_000_000:  # unset: a huge sentinel
        limits.append(int(tokenizer.model_max_length))
    limit = min(limits)
    if max_length is None:
        return min(layout.max_seq_length or _MAX_POSITIONS, limit)
    check_option("max_length", max_length, tokenizer.num_special_tokens_to_add(pair=False) + 1,
                 limit, whole=True)
    return max_length


def load_encoder(name_or_path: str | os.PathLike[str], *, device: str | torch.device = "cpu",
                 max_length: int | None = None, long_documents: str = DEFAULT_LONG_DOCUMENTS,
                 max_chunks: int = DEFAULT_MAX_CHUNKS,
                 allow_download: bool = False) -> SentenceEncoder:
    """A frozen sentence encoder from a local sentence-transformers or transformers directory,
    or a model name in the user's Hugging Face cache.

    Args:
        name_or_path: the directory, or a model name (``org/name``; a bare ``name`` is also
            looked up as ``sentence-transformers/name``).
        device: where the model runs (``cpu``, ``cuda``, ``cuda:1``, ``auto``).
        max_length: tokens per sequence, special tokens included (default: the model's
            ``max_seq_length``, else its position table up to 512).
        long_documents: ``truncate`` or ``chunks`` (see :mod:`gfbgcn.text.encoder.windows`).
        max_chunks: the most windows per document in ``chunks`` mode.
        allow_download: fetch a name that the cache lacks (never when ``HF_HUB_OFFLINE``).

    Raises:
        MissingExtraError: transformers is not installed (``gfbgcn[encoders]``).
        EncoderLoadError: the directory or name cannot be used (one line).
        OptionError: a setting out of range.
    """
    check_choice("long_documents", long_documents, LONG_DOCUMENT_MODES)
    check_option("max_chunks", max_chunks, 1, whole=True)
    dev = resolve_device(device)
    transformers = require("transformers", EXTRA, PURPOSE)
    layout = read_layout(resolve_directory(name_or_path, allow_download=allow_download))
    config = _check_encoder_config(transformers, layout)
    try:
        digest = files_digest(layout.root.resolve(), layout.files)
    except OSError as err:
        raise EncoderLoadError(f"encoder {layout.root}: cannot read {err.filename} "
                               f"({err.strerror or err})") from None
    with _quiet(transformers):
        tokenizer = _tokenizer(transformers, layout, int(config.get("vocab_size") or 0))
        model, hidden = _model(transformers, layout)
    identity = EncoderIdentity(
        name=str(name_or_path), digest=digest, pooling=layout.pooling,
        normalize=layout.normalize, max_length=_budget(layout, config, tokenizer, max_length),
        long_documents=long_documents, max_chunks=max_chunks, dim=hidden)
    return SentenceEncoder(identity, tokenizer, model.to(dev), dev, lowercase=layout.lowercase)

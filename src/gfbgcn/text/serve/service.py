"""What the HTTP server answers, apart from HTTP: requests checked, texts classified, JSON built.

Kept free of the web framework, so the rules are tested without a server and the framework
(:mod:`gfbgcn.text.serve.app`) only moves bytes.  A user's mistake is a :class:`RequestError`
carrying its 4xx status and a one-line message; nothing a client sends reaches the model
unchecked.

A request to ``POST /predict`` is a JSON object ``{"texts": ["...", ...], "top_k": k}``
(``top_k`` optional, default 1, capped at the number of labels as ``gfbgcn predict --top-k``
is).  The answer holds, per text, the label (multi-label: the labels at or above the model's
threshold), every label's probability, the ``top_k`` most probable labels and whether the text
had no word of the model's vocabulary: the same numbers as ``gfbgcn predict`` gives for the
same texts, since both load the model the same way and call the same ``predict``.
"""

from __future__ import annotations

import json
import threading
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gfbgcn.core.runinfo import package_versions
from gfbgcn.text.predict.inductive import NoKnownWordsWarning, Predictions

#: Defaults of the request limits (``gfbgcn serve --max-texts``, ``--max-bytes``,
#: ``--timeout``, ``--max-connections``).
DEFAULT_MAX_TEXTS = 256
DEFAULT_MAX_BYTES = 4 * 1024 * 1024
#: Seconds a client has for a request's head, and again for its body: 4 MiB in 30 s is a
#: client sending under 140 KB/s, slower than any that means to be answered.
DEFAULT_TIMEOUT = 30.0
#: Open connections at once: with the body limit, what bounds the memory requests can hold
#: (64 bodies of 4 MiB), far above what one model answering one batch at a time can serve.
DEFAULT_MAX_CONNECTIONS = 64
#: The keys a predict request may have (another key is refused: a typo such as ``"text"``
#: should not silently classify nothing).
REQUEST_KEYS = ("texts", "top_k")


class RequestError(Exception):
    """A client's mistake: the HTTP status (4xx) and a one-line message for the JSON error."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True)
class Limits:
    """The bounds of the requests: texts in a batch, bytes in a body, seconds a client has to
    send a request's head and again its body, connections open at once."""

    max_texts: int = DEFAULT_MAX_TEXTS
    max_bytes: int = DEFAULT_MAX_BYTES
    timeout: float = DEFAULT_TIMEOUT
    max_connections: int = DEFAULT_MAX_CONNECTIONS


def check_content_type(value: str | None) -> None:
    """Only ``application/json`` (any parameters, e.g. ``; charset=utf-8``) is read."""
    media = (value or "").split(";", 1)[0].strip().lower()
    if media != "application/json":
        raise RequestError(415, f"Content-Type must be application/json, got "
                                f"{value or 'none'!r}")


def check_declared_size(content_length: str | None, limits: Limits) -> None:
    """Refuse a body whose declared length is over the limit before reading any of it."""
    if content_length is None:
        return  # chunked: counted while read (BodyTooLarge)
    try:
        size = int(content_length)
    except ValueError:
        raise RequestError(400, f"Content-Length is not a number: {content_length!r}") from None
    if size > limits.max_bytes:
        raise RequestError(413, f"request body of {size} bytes is over the limit of "
                                f"{limits.max_bytes} bytes (--max-bytes); send fewer texts "
                                "per request")


def body_too_slow(limits: Limits) -> RequestError:
    """The error of a body that did not arrive within the deadline."""
    return RequestError(408, f"the request's body did not arrive within {limits.timeout:g} s "
                             "(--timeout)")


def body_too_large(limits: Limits) -> RequestError:
    """The error of a body that grew past the limit while it was read."""
    return RequestError(413, f"request body is over the limit of {limits.max_bytes} bytes "
                             "(--max-bytes); send fewer texts per request")


def _kind(value: Any) -> str:
    """A JSON value's kind, as a client would name it."""
    kinds = ((bool, "a boolean"), (int, "a number"), (float, "a number"), (str, "a string"),
             (list, "a list"), (dict, "an object"))
    return "null" if value is None else next(
        (name for kind, name in kinds if isinstance(value, kind)), type(value).__name__)


def parse_predict_request(body: bytes, limits: Limits, num_labels: int
                          ) -> tuple[list[str], int]:
    """``(texts, top_k)`` of a ``POST /predict`` body, or a :class:`RequestError`: 400 for a
    body that is not JSON, 413 for too many texts, 422 for JSON of the wrong shape."""
    if len(body) > limits.max_bytes:
        raise body_too_large(limits)
    try:
        request = json.loads(body)
    except RecursionError:
        raise RequestError(400, "request body is not valid JSON: nested too deeply") from None
    except ValueError as err:  # JSONDecodeError, and UnicodeDecodeError of bytes not UTF-8/16/32
        raise RequestError(400, f"request body is not valid JSON: {err}") from None
    if not isinstance(request, dict):
        raise RequestError(422, 'the body must be a JSON object {"texts": [...], "top_k": k}, '
                                f"got {_kind(request)}")
    unknown = sorted(set(request) - set(REQUEST_KEYS))
    if unknown:
        raise RequestError(422, f"unknown key(s) {', '.join(map(repr, unknown))}; a request "
                                f"has {', '.join(map(repr, REQUEST_KEYS))}")
    if "texts" not in request:
        raise RequestError(422, 'missing key "texts": a list of strings')
    texts = request["texts"]
    if isinstance(texts, str):
        raise RequestError(422, '"texts" must be a list of strings, got one string (wrap it: '
                                '["..."])')
    if not isinstance(texts, list):
        raise RequestError(422, f'"texts" must be a list of strings, got {_kind(texts)}')
    if len(texts) > limits.max_texts:
        raise RequestError(413, f"{len(texts)} texts in one request, over the limit of "
                                f"{limits.max_texts} (--max-texts); split the batch")
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise RequestError(422, f'"texts"[{i}] must be a string, got {_kind(text)}')
        if any(0xD800 <= ord(c) <= 0xDFFF for c in text):  # "\ud800": no Unicode character
            raise RequestError(422, f'"texts"[{i}] holds a lone surrogate escape (\\ud800-'
                                    "\\udfff), which is not a character")
    top_k = request.get("top_k", 1)
    if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1:
        raise RequestError(422, f'"top_k" must be a whole number >= 1, got {json.dumps(top_k)}')
    return texts, min(top_k, max(num_labels, 1))


def predictions_json(pred: Predictions, top_k: int) -> list[dict[str, Any]]:
    """One JSON object per document of ``pred`` (see the module docstring)."""
    names = list(pred.label_names)
    out = []
    for i, top in enumerate(pred.top_k(top_k) if len(pred) else []):
        probs = {name: float(p) for name, p in zip(names, pred.probabilities[i])}
        entry: dict[str, Any] = ({"labels": list(pred.labels[i])} if pred.multi_label
                                 else {"label": pred.labels[i],
                                       "probability": probs[pred.labels[i]]})
        entry["probabilities"] = probs
        entry["top_k"] = [{"label": label, "probability": p} for label, p in top]
        entry["no_known_words"] = bool(pred.no_known_words[i])
        out.append(entry)
    return out


class ModelService:
    """A model loaded once, and the answers of the server's endpoints.

    ``predict`` calls are serialised by a lock: the model's lazily built tables and the
    warning filters its predictors set are not safe to share between threads, and one call at a
    time already keeps torch's threads busy."""

    def __init__(self, model: Any, config: dict[str, Any], path: str | Path, *,
                 limits: Limits = Limits(), batch_size: int = 1024, device: str = "cpu") -> None:
        self.model, self.config, self.path = model, config, Path(path)
        self.limits, self.batch_size, self.device = limits, batch_size, device
        self.label_names: list[str] = list(model.label_names)
        self._lock = threading.Lock()

    def predict(self, texts: Sequence[str], top_k: int = 1) -> dict[str, Any]:
        """The answer of ``POST /predict`` for checked ``texts``."""
        labels = self.config["labels"]
        answer: dict[str, Any] = {"model": self.config["model"]["name"],
                                  "multi_label": bool(labels["multi_label"]),
                                  "label_names": self.label_names}
        if labels["multi_label"]:
            answer["threshold"] = labels.get("threshold")
        if not texts:
            return {**answer, "predictions": []}
        with self._lock, warnings.catch_warnings():
            # each document says so itself (no_known_words); a server log line per request
            # would say it again
            warnings.simplefilter("ignore", NoKnownWordsWarning)
            pred = self.model.predict(list(texts), batch_size=self.batch_size)
        return {**answer, "predictions": predictions_json(pred, top_k)}

    def health(self) -> dict[str, Any]:
        """``GET /health``: up, and which model."""
        return {"status": "ok", "model": self.config["model"]["name"],
                "labels": len(self.label_names)}

    def info(self) -> dict[str, Any]:
        """``GET /model``: the labels, the model's and graph's settings, the encoder if any,
        the package versions it was saved with and those serving it, and the limits."""
        c = self.config
        combined = c.get("combined")
        return {
            "path": str(self.path.absolute()),
            "labels": c["labels"],
            "model": c["model"],
            "tokenizer": c.get("tokenizer"),
            "graph": c.get("graph"),
            "features": c.get("features"),
            "inductive": c.get("inductive"),
            "encoder": c.get("encoder"),
            "combined": ({k: combined.get(k) for k in ("weight", "linear", "linear_C")}
                         if isinstance(combined, dict) else None),  # not the files' digests
            "training_data": c.get("training_data"),
            "metrics": c.get("metrics"),
            "versions": {"saved_with": c.get("versions"), "serving": package_versions()},
            "device": self.device,
            "limits": {"max_texts": self.limits.max_texts, "max_bytes": self.limits.max_bytes,
                       "timeout": self.limits.timeout,
                       "max_connections": self.limits.max_connections},
        }

"""The transductive outputs of a fitted classifier: its documents, found again by content.

Text GCN classifies the documents of its graph (those given to ``fit``, labelled or not) by the
graph's own output; a document that was not in the graph is classified inductively
(:mod:`gfbgcn.text.predict.inductive`).  A document is recognised by the sha256 of its text, so
the saved form (``transductive.safetensors`` in the model directory: the digests ``[n, 32]`` and
the probabilities ``[n, C]``) holds no text.  Of two identical documents the first one's row
is used.
"""

from __future__ import annotations

import hashlib
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from gfbgcn.core.errors import ModelLoadError
from gfbgcn.core.io import atomic_write, sha256_file
from gfbgcn.core.paths.inputs import is_regular_file


class AllInductiveWarning(UserWarning):
    """``fit`` was given ``X_unlabeled``, yet none of the documents to classify is among the
    fitted ones: in a ``Pipeline``, the usual cause is ``X_unlabeled`` skipping its steps."""


#: How a Pipeline sends X_unlabeled through its earlier steps (scikit-learn >= 1.6).
PIPELINE_ROUTING = ("sklearn.set_config(enable_metadata_routing=True), "
                    "Pipeline(..., transform_input=['X_unlabeled']) and "
                    "TextGCNClassifier(...).set_fit_request(X_unlabeled=True)")


def warn_if_all_inductive(rows: np.ndarray, num_unlabeled: int) -> None:
    """Warn (:class:`AllInductiveWarning`) when ``fit`` had ``num_unlabeled`` > 0 documents to
    classify transductively and none of the ``rows`` (:meth:`Transductive.rows`) is one of
    the fitted documents.  That is legitimate for new documents, but it is also what a
    ``Pipeline`` gives when ``X_unlabeled`` reached the classifier without the transforms
    ``X`` went through: prediction then silently becomes inductive."""
    if num_unlabeled and len(rows) and not (rows >= 0).any():
        warnings.warn(f"none of the {len(rows)} document(s) to classify was given to fit, "
                      f"though fit had {num_unlabeled} X_unlabeled document(s): all are "
                      "classified inductively. In a Pipeline, X_unlabeled goes through the "
                      f"earlier steps only with {PIPELINE_ROUTING}", AllInductiveWarning,
                      stacklevel=3)


#: The file of the transductive outputs in a model directory.
TRANSDUCTIVE_FILE = "transductive.safetensors"
_DIGEST_BYTES = 32


def text_digests(texts: Sequence[str]) -> np.ndarray:
    """``uint8 [len(texts), 32]``: the sha256 of each text (UTF-8)."""
    raw = b"".join(hashlib.sha256(t.encode("utf-8", "surrogatepass")).digest() for t in texts)
    return np.frombuffer(raw, dtype=np.uint8).reshape(len(texts), _DIGEST_BYTES)


@dataclass
class Transductive:
    """Probabilities ``[n, C]`` (columns in the model's label order) of the ``n`` documents
    the model was fitted on, and their text digests ``uint8 [n, 32]``."""

    digests: np.ndarray
    probabilities: np.ndarray
    _index: dict[bytes, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # built once here, so that looking documents up (predict) changes nothing
        self._index = self._build_index(self.digests)

    @staticmethod
    def _build_index(digests: np.ndarray) -> dict[bytes, int]:
        index: dict[bytes, int] = {}
        for i, digest in enumerate(digests):
            index.setdefault(digest.tobytes(), i)
        return index

    def __getstate__(self) -> dict[str, Any]:
        # the digests hold the index: a pickle need not carry it twice
        return {"digests": self.digests, "probabilities": self.probabilities}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.digests, self.probabilities = state["digests"], state["probabilities"]
        self._index = self._build_index(self.digests)

    def __repr__(self) -> str:
        return (f"Transductive({len(self.digests)} documents, "
                f"{self.probabilities.shape[1]} classes)")

    @classmethod
    def of(cls, texts: Sequence[str], probabilities: np.ndarray) -> Transductive:
        if len(texts) != len(probabilities):
            raise ValueError(f"{len(texts)} texts for {len(probabilities)} rows of outputs")
        return cls(text_digests(texts), np.asarray(probabilities, dtype=np.float64))

    @classmethod
    def empty(cls, num_classes: int) -> Transductive:
        """No document: every prediction is inductive."""
        return cls(np.zeros((0, _DIGEST_BYTES), dtype=np.uint8), np.zeros((0, num_classes)))

    def rows(self, texts: Sequence[str]) -> np.ndarray:
        """``int64 [len(texts)]``: each text's row, -1 for a text the model was not fitted on."""
        return np.fromiter((self._index.get(d.tobytes(), -1) for d in text_digests(texts)),
                           dtype=np.int64, count=len(texts))

    def write(self, directory: Path) -> dict[str, Any]:
        """Write :data:`TRANSDUCTIVE_FILE` into ``directory``; the ``config.json`` entry."""
        from safetensors.numpy import save_file

        arrays = {"text_sha256": np.ascontiguousarray(self.digests),
                  "probabilities": np.ascontiguousarray(self.probabilities)}
        atomic_write(directory / TRANSDUCTIVE_FILE, lambda tmp: save_file(arrays, str(tmp)))
        return {"documents": len(self.digests),
                "sha256": sha256_file(directory / TRANSDUCTIVE_FILE)}

    @classmethod
    def read(cls, directory: Path, entry: dict[str, Any], num_classes: int) -> Transductive:
        """The outputs written by :meth:`write`, checked against ``entry`` (its digest and
        size) and the model's number of classes; a :class:`ModelLoadError` otherwise."""
        from safetensors import SafetensorError
        from safetensors.numpy import load_file

        file = directory / TRANSDUCTIVE_FILE
        if not is_regular_file(file, error=ModelLoadError):
            raise ModelLoadError(f"{directory}: {TRANSDUCTIVE_FILE} is missing (incomplete "
                                 "model directory)")
        if sha256_file(file) != entry.get("sha256"):
            raise ModelLoadError(f"{file}: checksum mismatch, the file is corrupt or was "
                                 "modified after saving")
        try:
            arrays = load_file(str(file))
            digests, probs = arrays["text_sha256"], arrays["probabilities"]
        except (SafetensorError, OSError, KeyError) as err:
            raise ModelLoadError(f"{file}: unreadable transductive outputs ({err})") from err
        n = int(entry.get("documents", -1))
        if digests.shape != (n, _DIGEST_BYTES) or probs.shape != (n, num_classes):
            raise ModelLoadError(f"{file}: shapes {list(digests.shape)} and {list(probs.shape)} "
                                 f"do not fit {n} documents of {num_classes} classes")
        return cls(digests, probs.astype(np.float64))

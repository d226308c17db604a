"""What makes two encoders give the same embeddings: the identity record and its digests.

The record holds the name or path the user gave (for messages and a saved model), a digest of
the model files that determine the output, and every setting that changes a vector: pooling,
normalisation, the token budget, the long-document mode and its chunk limit, and the dimension.
The embedding cache keys its folders by :meth:`EncoderIdentity.key`, which leaves out the name:
the same files and settings under another path give the same vectors.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from gfbgcn.core.field_checks import Schema, of_type, one_of, schema_problem, sha256_hex
from gfbgcn.core.field_checks import whole as whole_check
from gfbgcn.core.io import json_digest, sha256_file
from gfbgcn.text.encoder.pooling import POOLINGS

__all__ = ["CHUNKS", "LONG_DOCUMENT_MODES", "TRUNCATE", "EncoderIdentity", "files_digest"]

#: A document longer than the encoder's token budget is cut to its first window.
TRUNCATE = "truncate"
#: A document longer than the budget is embedded as the mean of the embeddings of its
#: windows (at most ``max_chunks`` of them).
CHUNKS = "chunks"
#: The ways of embedding a long document (``long_documents=``).
LONG_DOCUMENT_MODES = (TRUNCATE, CHUNKS)
#: Bumped when the way vectors are computed from the same files and settings changes, so that
#: vectors cached before are not taken for the new ones.
EMBEDDING_FORMAT = 1


def files_digest(root: Path, files: tuple[str, ...]) -> str:
    """sha256 over the sorted relative paths of ``files`` (under ``root``) and each file's
    sha256: a changed, added, removed or renamed file changes it.  ``OSError`` where a file
    cannot be read (the caller names the encoder)."""
    listing = [[name, sha256_file(root / name)] for name in sorted(files)]
    return hashlib.sha256(json.dumps(listing).encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class EncoderIdentity:
    """An encoder as the embeddings depend on it.

    Attributes:
        name: the directory or model name as given (not part of :meth:`key`).
        digest: :func:`files_digest` of the files that determine the output.
        pooling: ``mean``, ``cls`` or ``max`` over the last hidden states.
        normalize: document vectors scaled to unit length.
        max_length: tokens per sequence, special tokens included.
        long_documents: ``truncate`` (the first ``max_length`` tokens) or ``chunks`` (the
            token-weighted mean of up to ``max_chunks`` windows).
        max_chunks: the most windows a document is cut into in ``chunks`` mode.
        dim: the embedding width.
    """

    name: str
    digest: str
    pooling: str
    normalize: bool
    max_length: int
    long_documents: str
    max_chunks: int
    dim: int

    def to_dict(self) -> dict[str, Any]:
        """A JSON object of the fields (:meth:`from_dict` reads it back)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Any) -> EncoderIdentity:
        """The identity a :meth:`to_dict` object records; ``ValueError`` naming the first field
        that is missing or malformed (a saved model's file edited or from another version)."""
        schema: Schema = {
            "name": of_type(str, "a string"), "digest": sha256_hex,
            "pooling": one_of(*POOLINGS), "normalize": of_type(bool, "true or false"),
            "max_length": whole_check(1), "long_documents": one_of(*LONG_DOCUMENT_MODES),
            "max_chunks": whole_check(1), "dim": whole_check(1),
        }
        if not isinstance(data, dict):
            raise ValueError("encoder record: expected an object")
        problem = schema_problem(data, schema)
        if problem is not None:
            raise ValueError(f"encoder record field {problem[0]}: {problem[1]}")
        unknown = sorted(set(data) - {f.name for f in fields(cls)})
        if unknown:
            raise ValueError(f"encoder record: unknown field {unknown[0]}")
        return cls(**data)

    def key(self) -> str:
        """A digest of everything but the name (32 hex digits): equal keys, equal vectors.
        ``max_chunks`` counts only in ``chunks`` mode, where it changes a vector."""
        record = {**self.to_dict(), "format": EMBEDDING_FORMAT}
        del record["name"]
        if self.long_documents != CHUNKS:
            record["max_chunks"] = None
        return json_digest(record)[:32]


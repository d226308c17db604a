"""The key of a graph in the on-disk cache: the corpus content, the graph settings, the tokenizer
and the format version, hashed (any change rebuilds the graph)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict
from typing import Any

__all__ = ["GRAPH_FORMAT_VERSION", "corpus_digest", "graph_cache_key"]

#: 2: both edge arrays aligned in the file, so both can be mapped
#: (:mod:`gfbgcn.text.graph.npz_map`).  Another version is rebuilt, never read.
GRAPH_FORMAT_VERSION = 2


def corpus_digest(corpus: Any) -> str:
    """SHA-256 of a corpus's labels, splits and texts, in order."""
    h = hashlib.sha256()
    for text, label, flag in zip(corpus.texts, corpus.labels, corpus.is_train):
        h.update(label.encode("utf-8", "surrogatepass"))
        h.update(b"\x1f1" if flag else b"\x1f0")
        h.update(text.encode("utf-8", "surrogatepass"))
        h.update(b"\x1e")
    return h.hexdigest()


def graph_cache_key(corpus: Any, config: Any, tokenizer: str) -> str:
    """24 hex digits naming the graph of ``corpus`` built with ``config`` (a ``GraphConfig``)
    and the tokenizer identified by ``tokenizer``."""
    from gfbgcn.text.tokenize.stop_words import stop_words_digest

    fields = {
        "format": GRAPH_FORMAT_VERSION,
        "corpus": corpus_digest(corpus),
        "config": asdict(config),
        "tokenizer": tokenizer,
    }
    digest = stop_words_digest(config.stop_words)
    if digest is not None:  # a stop-word file: its content, not only its path, keys the graph
        fields["stop_words_file"] = digest
    payload = json.dumps(fields, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:24]

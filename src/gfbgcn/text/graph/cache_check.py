"""Cheap consistency checks of a graph read from the cache: its metadata agree with its arrays.

The seal (:mod:`gfbgcn.text.graph.npz_seal`) says the file holds what was written for its key;
these checks keep a file that passes it but disagrees with itself (a re-sealed edit, or a bug)
from failing deep inside training with an internal error: the caller warns and rebuilds.
"""

from __future__ import annotations

from typing import Any

__all__ = ["check_cached_graph"]


def check_cached_graph(graph: Any) -> None:
    """Metadata and arrays of a cached graph (a ``TextGraph``; not imported: that module
    imports this one) agree (sizes, label range, edge counts): cheap
    checks, O(documents + words), that keep a disagreeing file from failing deep inside
    training.  ``ValueError`` names the first disagreement."""
    d, v = graph.num_docs, graph.num_words
    if not isinstance(d, int) or isinstance(d, bool) or d < 0:
        raise ValueError(f"num_docs {d!r} is not a document count")
    if not (isinstance(graph.label_names, list)
            and all(isinstance(n, str) for n in graph.label_names)):
        raise ValueError("label_names is not a list of strings")
    for name, array, size, kinds in (("labels", graph.labels, d, "iu"),
                                     ("is_train", graph.is_train, d, "b"),
                                     ("doc_lengths", graph.doc_lengths, d, "iu"),
                                     ("idf", graph.idf, v, "f"),
                                     ("word_count", graph.word_count, v, "iu")):
        if array.shape != (size,) or array.dtype.kind not in kinds:
            raise ValueError(f"{name} has shape {array.shape} and dtype {array.dtype}, the "
                             f"metadata imply ({size},)")
    if d and (graph.labels.min() < 0 or graph.labels.max() >= len(graph.label_names)):
        raise ValueError(f"labels outside [0, {len(graph.label_names)}) (label_names has "
                         f"{len(graph.label_names)})")
    edges = graph.edge_index.shape
    counts = (graph.num_doc_word, graph.num_word_word)
    if not all(isinstance(c, int) and c >= 0 for c in counts):
        raise ValueError(f"edge counts {counts!r} are not counts")
    if len(edges) != 2 or edges[0] != 2 or graph.edge_weight.shape != (edges[1],):
        raise ValueError(f"edge arrays of shapes {edges} and {graph.edge_weight.shape}")
    if edges[1] != 2 * sum(counts):
        raise ValueError(f"{edges[1]} directed edges, the metadata count "
                         f"{2 * sum(counts)}")

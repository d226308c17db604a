"""The Text GCN corpus graph (Yao et al. 2019; paper appendix "Text Graph").

Nodes are the documents (first, in corpus order) and then the vocabulary words (by decreasing
frequency).  Edges:

* document-word: TF-IDF, ``tf`` = raw count of the word in the document, ``idf = log(D / df)``
  over all D documents (as the reference implementation);
* word-word: positive PMI over sliding windows of ``window`` tokens,
  ``PMI(i, j) = log(p(i, j) / (p(i) p(j)))``, ``p(i, j) = W(i, j) / W``, ``p(i) = W(i) / W``,
  where ``W`` is the number of windows (a document shorter than the window is one window),
  ``W(i)`` the number of windows containing word ``i`` and ``W(i, j)`` the number containing
  both (the paper's definition, ``cooccurrence="window"``).  ``cooccurrence="pair"`` reproduces
  the reference code instead, which counts pairs of *positions* within each window
  (a window with ``i`` twice and ``j`` once adds 2 to ``W(i, j)``).

``edge_index``/``edge_weight`` hold this raw adjacency ``A`` without self-loops, both directions,
so that any PyG layer with its default GCN normalisation computes exactly Text GCN's
``D^-1/2 (A + I) D^-1/2``; :func:`normalized_adjacency` returns that matrix directly.

Counting is vectorised: for each offset ``d = 1..window-1`` all token pairs ``(p, p + d)`` of all
documents are handled at once, and the number of windows that contain both positions (and in
which both are the first occurrence of their word, for the ``window`` definition) is a closed-form
interval length.  No Python loop runs over windows, tokens or edges.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp
import torch
from torch_geometric.data import Data

from gfbgcn.io import atomic_write
from gfbgcn.paths import cache_dir
from gfbgcn.text.corpora import Corpus
from gfbgcn.text.preprocess import (
    TokenizedCorpus,
    Tokenizer,
    preprocess,
    textgcn_tokenize,
    tokenizer_key,
)

log = logging.getLogger(__name__)

GRAPH_FORMAT_VERSION = 1


@dataclass(frozen=True)
class GraphConfig:
    """Everything that determines the graph besides the corpus; part of the cache key."""

    window: int = 20
    min_freq: int = 5
    stop_words: str | None = "english"
    cooccurrence: str = "window"  # "window" (paper) or "pair" (reference code)

    def __post_init__(self) -> None:
        if self.window < 2:
            raise ValueError(f"window must be >= 2, got {self.window}")
        if self.cooccurrence not in ("window", "pair"):
            raise ValueError(f"cooccurrence must be 'window' or 'pair', got {self.cooccurrence!r}")


@dataclass
class TextGraph:
    """A built corpus graph plus what is needed to interpret and extend it."""

    edge_index: np.ndarray  # int64 [2, E], both directions, no self-loops
    edge_weight: np.ndarray  # float32 [E]
    num_docs: int
    vocab: list[str]
    idf: np.ndarray  # float64 [V]
    word_count: np.ndarray  # int64 [V]
    doc_lengths: np.ndarray  # int64 [D] tokens kept per document
    labels: np.ndarray  # int64 [D]
    label_names: list[str]
    is_train: np.ndarray  # bool [D]
    num_doc_word: int  # undirected doc-word edges
    num_word_word: int  # undirected word-word edges
    num_windows: int
    config: GraphConfig
    tokenizer: str
    corpus_name: str
    key: str = ""
    build_seconds: float = 0.0
    from_cache: bool = False
    notes: list[str] = field(default_factory=list)

    @property
    def num_words(self) -> int:
        return len(self.vocab)

    @property
    def num_nodes(self) -> int:
        return self.num_docs + self.num_words

    def empty_docs(self) -> np.ndarray:
        return np.flatnonzero(self.doc_lengths == 0)

    def stats(self) -> dict[str, Any]:
        return {
            "dataset": self.corpus_name,
            "docs": self.num_docs,
            "train_docs": int(self.is_train.sum()),
            "test_docs": int((~self.is_train).sum()),
            "classes": len(self.label_names),
            "words": self.num_words,
            "nodes": self.num_nodes,
            "doc_word_edges": self.num_doc_word,
            "word_word_edges": self.num_word_word,
            "average_length": float(self.doc_lengths.mean()) if self.num_docs else 0.0,
            "empty_docs": int(len(self.empty_docs())),
            "windows": self.num_windows,
        }

    def to_data(self, val_ratio: float = 0.1, seed: int = 0) -> Data:
        """A PyG ``Data`` with masks; ``val_ratio`` of the training docs become validation.

        Word nodes have label -1 and belong to no mask.
        """
        n, d = self.num_nodes, self.num_docs
        y = torch.full((n,), -1, dtype=torch.long)
        y[:d] = torch.from_numpy(self.labels)
        train_docs = np.flatnonzero(self.is_train)
        rng = np.random.default_rng(seed)
        n_val = int(round(val_ratio * len(train_docs)))
        val_docs = rng.choice(train_docs, size=n_val, replace=False) if n_val else train_docs[:0]
        masks = {name: torch.zeros(n, dtype=torch.bool) for name in ("train", "val", "test")}
        masks["train"][torch.from_numpy(train_docs)] = True
        masks["train"][torch.from_numpy(val_docs)] = False
        masks["val"][torch.from_numpy(val_docs)] = True
        masks["test"][torch.from_numpy(np.flatnonzero(~self.is_train))] = True
        return Data(
            edge_index=torch.from_numpy(self.edge_index),
            edge_weight=torch.from_numpy(self.edge_weight),
            y=y,
            num_nodes=n,
            num_docs=d,
            train_mask=masks["train"],
            val_mask=masks["val"],
            test_mask=masks["test"],
        )


# ---------------------------------------------------------------------------------------------
# Counting


def tfidf_matrix(tc: TokenizedCorpus) -> tuple[sp.csr_matrix, np.ndarray]:
    """``(TF-IDF [D, V] csr, idf [V])`` with raw counts as TF and ``log(D / df)`` as IDF."""
    num_docs, vocab_size = tc.num_docs, len(tc.vocab)
    doc_of_token = np.repeat(np.arange(num_docs, dtype=np.int64), tc.doc_lengths)
    counts = sp.csr_matrix(
        (np.ones(len(tc.tokens), dtype=np.float64), (doc_of_token, tc.tokens)),
        shape=(num_docs, vocab_size),
    )
    counts.sum_duplicates()
    df = np.bincount(counts.indices, minlength=vocab_size)
    idf = np.log(num_docs / np.maximum(df, 1))
    tfidf = counts.multiply(idf[None, :]).tocsr()
    tfidf.eliminate_zeros()  # a word in every document has idf 0: no edge
    return tfidf, idf


def _token_layout(tc: TokenizedCorpus) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per token: its position in its document, its document's length, and the position of the
    previous occurrence of the same word in the same document (-1 if none)."""
    lengths = tc.doc_lengths
    doc_of_token = np.repeat(np.arange(tc.num_docs, dtype=np.int64), lengths)
    local = np.arange(len(tc.tokens), dtype=np.int64) - tc.doc_ptr[:-1][doc_of_token]
    doc_len = lengths[doc_of_token]
    order = np.lexsort((local, tc.tokens, doc_of_token))
    same = np.zeros(len(order), dtype=bool)
    if len(order) > 1:
        same[1:] = (doc_of_token[order[1:]] == doc_of_token[order[:-1]]) & (
            tc.tokens[order[1:]] == tc.tokens[order[:-1]]
        )
    prev = np.full(len(order), -1, dtype=np.int64)
    prev_sorted = np.full(len(order), -1, dtype=np.int64)
    prev_sorted[1:] = local[order[:-1]]
    prev[order] = np.where(same, prev_sorted, -1)
    return local, doc_len, prev


def window_counts(
    tc: TokenizedCorpus, window: int, cooccurrence: str = "window", chunk_pairs: int = 12_000_000
) -> tuple[sp.csr_matrix, np.ndarray, int]:
    """``(W(i, j) [V, V] symmetric csr, W(i) [V], W)``; see the module docstring.

    Position pairs are summed into a sparse matrix in chunks of about ``chunk_pairs`` entries,
    which bounds peak memory (about 30 bytes per pending pair).
    """
    vocab_size = len(tc.vocab)
    lengths = tc.doc_lengths
    num_windows = int(np.maximum(lengths - window + 1, 1).sum())
    local, doc_len, prev = _token_layout(tc)
    last_start = np.maximum(doc_len - window, 0)  # last window start in each token's document

    # W(i): windows in which position p is the first occurrence of its word.
    lo = np.maximum(np.maximum(local - window + 1, prev + 1), 0)
    hi = np.minimum(local, last_start)
    per_pos = np.maximum(hi - lo + 1, 0)
    word_windows = np.bincount(tc.tokens, weights=per_pos, minlength=vocab_size)

    first_only = cooccurrence == "window"
    tokens = tc.tokens.astype(np.int64)
    acc = sp.csr_matrix((vocab_size, vocab_size), dtype=np.float64)
    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    vals: list[np.ndarray] = []
    pending = 0

    def flush() -> None:
        nonlocal acc, pending
        if pending:
            chunk = sp.coo_matrix(
                (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                shape=(vocab_size, vocab_size),
            ).tocsr()  # sums duplicate (i, j) entries
            acc = acc + chunk
            rows.clear(), cols.clear(), vals.clear()
            pending = 0

    for d in range(1, window):
        p = np.flatnonzero(local + d < doc_len)
        if len(p) == 0:
            break
        q = p + d
        wp, wq = tokens[p], tokens[q]
        # window starts s with both p and q inside: q - window + 1 <= s <= min(p, last_start)
        lo = np.maximum(local[q] - window + 1, 0)
        if first_only:
            lo = np.maximum(lo, np.maximum(prev[p], prev[q]) + 1)
        hi = np.minimum(local[p], last_start[p])
        count = hi - lo + 1
        keep = (count > 0) & (wp != wq)
        rows.append(wp[keep].astype(np.int32))
        cols.append(wq[keep].astype(np.int32))
        vals.append(count[keep].astype(np.float32))
        pending += int(keep.sum())
        if pending >= chunk_pairs:
            flush()
    flush()
    pair_windows = (acc + acc.T).tocsr()
    pair_windows.sum_duplicates()
    return pair_windows, word_windows, num_windows


def ppmi_matrix(
    pair_windows: sp.csr_matrix, word_windows: np.ndarray, num_windows: int
) -> sp.csr_matrix:
    """Positive PMI ``log(W(i,j) W / (W(i) W(j)))`` on the nonzeros of ``pair_windows``."""
    coo = pair_windows.tocoo()
    pmi = np.log(coo.data * num_windows / (word_windows[coo.row] * word_windows[coo.col]))
    keep = pmi > 0
    return sp.csr_matrix(
        (pmi[keep], (coo.row[keep], coo.col[keep])), shape=pair_windows.shape
    )


def assemble_adjacency(tfidf: sp.csr_matrix, ppmi: sp.csr_matrix) -> sp.coo_matrix:
    """``[[0, TFIDF], [TFIDF^T, PPMI]]`` (docs first), without self-loops."""
    num_docs = tfidf.shape[0]
    zeros = sp.csr_matrix((num_docs, num_docs))
    return sp.bmat([[zeros, tfidf], [tfidf.T, ppmi]], format="coo")


def normalized_adjacency(
    edge_index: torch.Tensor, edge_weight: torch.Tensor, num_nodes: int
) -> torch.Tensor:
    """``D^-1/2 (A + I) D^-1/2`` as a torch sparse CSR matrix.

    The text graph is symmetric, so the result is marked symmetric for
    :func:`gfbgcn.nn.sparse.spmm` (its backward reuses the matrix instead of a transpose).
    """
    from torch_geometric.nn.conv.gcn_conv import gcn_norm

    from gfbgcn.nn.sparse import mark_symmetric

    ei, ew = gcn_norm(edge_index, edge_weight, num_nodes, add_self_loops=True)
    with warnings.catch_warnings():  # torch flags sparse CSR as beta; it is what we want here
        warnings.simplefilter("ignore", UserWarning)
        coo = torch.sparse_coo_tensor(ei, ew, (num_nodes, num_nodes)).coalesce()
        return mark_symmetric(coo.to_sparse_csr())


# ---------------------------------------------------------------------------------------------
# Building and caching


def corpus_digest(corpus: Corpus) -> str:
    h = hashlib.sha256()
    for text, label, flag in zip(corpus.texts, corpus.labels, corpus.is_train):
        h.update(label.encode("utf-8", "surrogatepass"))
        h.update(b"\x1f1" if flag else b"\x1f0")
        h.update(text.encode("utf-8", "surrogatepass"))
        h.update(b"\x1e")
    return h.hexdigest()


def graph_cache_key(corpus: Corpus, config: GraphConfig, tokenizer: str) -> str:
    payload = json.dumps(
        {
            "format": GRAPH_FORMAT_VERSION,
            "corpus": corpus_digest(corpus),
            "config": asdict(config),
            "tokenizer": tokenizer,
        },
        sort_keys=True,
    )
    return hashlib.sha256(payload.encode()).hexdigest()[:24]


def build_graph_from_tokens(
    tc: TokenizedCorpus, corpus: Corpus, config: GraphConfig, tokenizer: str
) -> TextGraph:
    tfidf, idf = tfidf_matrix(tc)
    pair_windows, word_windows, num_windows = window_counts(tc, config.window, config.cooccurrence)
    ppmi = ppmi_matrix(pair_windows, word_windows, num_windows)
    adj = assemble_adjacency(tfidf, ppmi)
    edge_index = np.vstack([adj.row, adj.col]).astype(np.int64)
    notes = list(corpus.notes)
    empty = np.flatnonzero(tc.doc_lengths == 0)
    if len(empty):
        notes.append(
            f"{len(empty)} document(s) have no token left after cleaning (e.g. index "
            f"{int(empty[0])}); they stay as nodes with only their self-loop"
        )
    return TextGraph(
        edge_index=edge_index,
        edge_weight=adj.data.astype(np.float32),
        num_docs=tc.num_docs,
        vocab=tc.vocab,
        idf=idf,
        word_count=tc.word_count,
        doc_lengths=tc.doc_lengths.astype(np.int64),
        labels=corpus.label_ids(),
        label_names=corpus.label_names,
        is_train=corpus.is_train.copy(),
        num_doc_word=int(tfidf.nnz),
        num_word_word=int(ppmi.nnz // 2),
        num_windows=num_windows,
        config=config,
        tokenizer=tokenizer,
        corpus_name=corpus.name,
        notes=notes,
    )


def _save(graph: TextGraph, path: Path) -> None:
    meta = {
        "format": GRAPH_FORMAT_VERSION,
        "num_docs": graph.num_docs,
        "label_names": graph.label_names,
        "num_doc_word": graph.num_doc_word,
        "num_word_word": graph.num_word_word,
        "num_windows": graph.num_windows,
        "config": asdict(graph.config),
        "tokenizer": graph.tokenizer,
        "corpus_name": graph.corpus_name,
        "notes": graph.notes,
        "key": graph.key,
        "build_seconds": graph.build_seconds,
    }

    def write(tmp: Path) -> None:
        with open(tmp, "wb") as fh:
            np.savez(
                fh,
                edge_index=graph.edge_index.astype(np.int32),
                edge_weight=graph.edge_weight,
                vocab=np.array(graph.vocab, dtype=str),
                idf=graph.idf,
                word_count=graph.word_count,
                doc_lengths=graph.doc_lengths,
                labels=graph.labels,
                is_train=graph.is_train,
                meta=np.array(json.dumps(meta)),
            )

    atomic_write(path, write)


def _load(path: Path) -> TextGraph:
    with np.load(path, allow_pickle=False) as z:
        meta = json.loads(str(z["meta"]))
        if meta.get("format") != GRAPH_FORMAT_VERSION:
            raise ValueError(f"{path}: graph format {meta.get('format')} is not supported")
        return TextGraph(
            edge_index=z["edge_index"].astype(np.int64),
            edge_weight=z["edge_weight"],
            num_docs=meta["num_docs"],
            vocab=[str(w) for w in z["vocab"]],
            idf=z["idf"],
            word_count=z["word_count"],
            doc_lengths=z["doc_lengths"],
            labels=z["labels"],
            label_names=meta["label_names"],
            is_train=z["is_train"],
            num_doc_word=meta["num_doc_word"],
            num_word_word=meta["num_word_word"],
            num_windows=meta["num_windows"],
            config=GraphConfig(**meta["config"]),
            tokenizer=meta["tokenizer"],
            corpus_name=meta["corpus_name"],
            key=meta["key"],
            build_seconds=meta["build_seconds"],
            from_cache=True,
            notes=meta["notes"],
        )


def build_text_graph(
    corpus: Corpus,
    config: GraphConfig | None = None,
    tokenizer: Tokenizer = textgcn_tokenize,
    *,
    cache: bool = True,
    cache_root: str | Path | None = None,
) -> TextGraph:
    """Build (or load from the on-disk cache) the Text GCN graph of ``corpus``.

    The cache key hashes the corpus content (texts, labels, splits), ``config``, the tokenizer's
    identity and the format version, so any change rebuilds.  A tokenizer without a stable
    identity (a lambda, a local function without ``cache_key``) disables caching.
    """
    config = config or GraphConfig()
    tok_key = tokenizer_key(tokenizer)
    use_cache = cache and tok_key is not None
    if cache and tok_key is None:
        log.warning("tokenizer %r has no stable identity (set .cache_key): not caching", tokenizer)
    key = graph_cache_key(corpus, config, tok_key or "uncached") if use_cache else ""
    path = Path(cache_root or cache_dir("graphs")) / f"{corpus.name}-{key}.npz"
    if use_cache and path.is_file():
        try:
            return _load(path)
        except (OSError, ValueError, KeyError) as err:
            log.warning("ignoring unreadable graph cache %s (%s); rebuilding", path, err)
    start = time.perf_counter()
    tc = preprocess(corpus.texts, tokenizer, min_freq=config.min_freq, stop_words=config.stop_words)
    graph = build_graph_from_tokens(tc, corpus, config, tok_key or "custom")
    graph.build_seconds = time.perf_counter() - start
    graph.key = key
    if use_cache:
        _save(graph, path)
    return graph

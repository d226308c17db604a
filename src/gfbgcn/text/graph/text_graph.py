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

The counting kernels (TF-IDF, window co-occurrence, PPMI) are in :mod:`gfbgcn.text.graph.counts`.
"""

from __future__ import annotations

import logging
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch_geometric.data import Data

from gfbgcn.core.memory import release_free_memory
from gfbgcn.core.paths import cache_dir, touch, write_to_cache
from gfbgcn.text.corpus.benchmarks import Corpus
from gfbgcn.text.corpus.splits import validation_docs
from gfbgcn.text.graph.cache import (  # graph_cache_key, GRAPH_FORMAT_VERSION: re-exported
    GRAPH_FORMAT_VERSION,  # noqa: F401
    check_cached_graph,
    check_seal,
    graph_cache_key,
    map_edges,
    read_graph,
    write_graph,
)
from gfbgcn.text.graph.counts import (
    ppmi_matrix,
    tfidf_from_counts,
    tfidf_matrix,
    window_counts,
)
from gfbgcn.text.graph.edges import bmat_edges, edges_from_upper, positive_pmi_upper
from gfbgcn.text.graph.phases import timed
from gfbgcn.text.graph.sharded import CorpusCounts, count_corpus
from gfbgcn.text.params import DEFAULTS, PAPER_MIN_FREQ, PAPER_STOP_WORDS, check_parameter
from gfbgcn.text.tokenize.clean import Tokenizer, textgcn_tokenize, tokenizer_key
from gfbgcn.text.tokenize.preprocess import TokenizedCorpus

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class GraphConfig:
    """Everything that determines the graph besides the corpus; part of the cache key."""

    # defaults and ranges: gfbgcn.text.params; stop_words is the parsed setting (None: none)
    window: int = DEFAULTS["window"]
    min_freq: int = PAPER_MIN_FREQ  # (the estimator's "auto" is resolved before this)
    stop_words: str | None = PAPER_STOP_WORDS
    cooccurrence: str = DEFAULTS["cooccurrence"]  # "window" (paper) or "pair" (reference code)

    def __post_init__(self) -> None:  # OptionError naming the parameter (CLI: its option)
        for name in ("window", "min_freq", "cooccurrence"):
            check_parameter(name, getattr(self, name), words=False)


@dataclass
class TextGraph:
    """A built corpus graph plus what is needed to interpret and extend it.

    ``edge_index`` is int32 after a build (int64 from 2^31 nodes on); a graph read from the
    cache (or after :meth:`release_edges`) holds int32 copy-on-write maps of the cache file,
    which cost no memory until read (:mod:`gfbgcn.text.graph.cache`).  Same values.
    """

    edge_index: np.ndarray  # int32 (int64 past 2^31 nodes) [2, E], both directions, no self-loops
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
    cache_path: str = ""  # the cache file holding this graph ("" when not cached)
    #: wall seconds per phase of the build that made it (empty when loaded from the cache)
    build_phases: dict[str, float] = field(default_factory=dict)
    #: bool [D]: test documents without a label (the corpus's ``unlabeled``: ``X_unlabeled`` of
    #: ``TextGCNClassifier.fit``; not cached, taken from the corpus on every build or load):
    #: -1 and in no mask in :meth:`to_data`.  ``None``: every one has one
    unlabeled: np.ndarray | None = None
    #: draw the validation split of :meth:`to_data` stratified by class (the estimator sets it
    #: for a corpus of its own with one label per document; not cached): see
    #: :mod:`gfbgcn.text.corpus.splits`.  False: at random, the paper's protocol
    stratify_validation: bool = False
    #: The validation split :meth:`to_pyg` draws when not told: ``val_ratio`` of the training
    #: documents, drawn with ``seed``.  ``TextGCNClassifier.fit`` and :func:`gfbgcn.build_graph`
    #: set them to the run's (``val_ratio``, the seed of ``random_state``), so that
    #: ``to_pyg()`` gives the masks that training used.  Not cached.
    val_ratio: float = DEFAULTS["val_ratio"]
    seed: int = DEFAULTS["random_state"]

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

    def to_pyg(self, val_ratio: float | None = None, seed: int | None = None) -> Data:
        """The graph as a PyTorch Geometric ``Data``, to train any PyG model on it.

        ``edge_index`` ``[2, E]`` and ``edge_weight`` ``[E]``: the raw adjacency (both
        directions, no self-loops; PyG's GCN normalisation gives Text GCN's ``Â``); ``y``
        ``[N]``: class ids of the documents (nodes ``0..num_docs-1``), -1 for the word nodes;
        ``train_mask``/``val_mask``/``test_mask`` ``[N]``: the training documents less a
        ``val_ratio`` share drawn with ``seed`` (the validation split of ``gfbgcn train``,
        :meth:`validation_docs`), and the labelled test documents.  ``val_ratio`` and ``seed``
        default to the graph's own (:attr:`val_ratio`, :attr:`seed`): after
        ``TextGCNClassifier(random_state=S).fit``, ``clf.graph_.to_pyg()`` holds the split that
        training used.  Documents without a label (:attr:`unlabeled`: the ``X_unlabeled`` of
        :class:`gfbgcn.TextGCNClassifier`) have ``y`` -1 and are in no mask, like the word
        nodes, so that accuracy against ``data.y[data.test_mask]`` is measured on labelled
        documents only.  No ``x``: Text GCN's input is the identity, so the first layer's
        ``X W`` is ``W`` itself (e.g. ``torch.nn.Embedding(data.num_nodes, d).weight``).
        Class ``i`` is ``label_names[i]``.

        **A sparse adjacency is much faster than** ``edge_index`` for PyG's stock layers on
        these graphs.  With ``edge_index``, ``GCNConv`` gathers a message per edge (an
        ``[E, d]`` tensor: R8 has 3.4 million edges with self-loops) and scatters them back;
        with the transposed sparse adjacency ``adj_t`` it does one sparse-dense product
        (CSR SpMM) and never forms the messages.  PyG's own transform builds it, a
        ``torch.sparse`` CSR tensor holding the edge weights (``docs/benchmarks.md``, section
        "A stock PyG GCNConv on a text graph", has the times)::

            import torch
            import torch_geometric.transforms as T
            from torch_geometric.nn import GCNConv

            data = T.ToSparseTensor(attr="edge_weight")(graph.to_pyg())  # data.adj_t [N, N]
            # a learned row per node: Text GCN's identity input times a weight matrix
            embedding = torch.nn.Embedding(data.num_nodes, 200)
            conv1 = GCNConv(200, 200, cached=True)  # cached: Â is normalised once
            conv2 = GCNConv(200, len(graph.label_names), cached=True)
            hidden = conv1(embedding.weight, data.adj_t).relu()
            out = conv2(hidden, data.adj_t)  # [N, classes]; rows of data.train_mask train
        """
        return self.to_data(self.val_ratio if val_ratio is None else val_ratio,
                            self.seed if seed is None else seed)

    def validation_docs(self, val_ratio: float = 0.1, seed: int = 0) -> np.ndarray:
        """``[V]`` the training documents that :meth:`to_data` holds out for validation:
        ``round(val_ratio * train)`` drawn with ``seed``, stratified by class where
        :attr:`stratify_validation` (then at least one of each class of two or more training
        documents: :func:`gfbgcn.text.corpus.splits.validation_docs`)."""
        return validation_docs(np.flatnonzero(self.is_train), self.labels, val_ratio, seed,
                               self.stratify_validation)

    def labelled_test(self) -> np.ndarray:
        """``[T]`` the test documents that carry a label (those test metrics score)."""
        test = ~np.asarray(self.is_train)
        if self.unlabeled is not None:
            test &= ~self.unlabeled
        return np.flatnonzero(test)

    def release_edges(self) -> bool:
        """Replace the edge arrays by fresh maps of the cache file: pages read so far (or the
        int64 arrays of a build) leave this process's memory, and the arrays read back from the
        file on demand.  ``False`` (nothing changed) without a cache file that can be mapped."""
        if not self.cache_path:
            return False
        edge_index, edge_weight = map_edges(self.cache_path)
        if edge_index is None or edge_weight is None or edge_index.shape != self.edge_index.shape:
            return False  # e.g. no edges: nothing to map
        self.edge_index, self.edge_weight = edge_index, edge_weight
        return True

    def to_data(self, val_ratio: float = 0.1, seed: int = 0, edges: bool = True) -> Data:
        """A PyG ``Data`` with masks; ``val_ratio`` of the training docs become validation.

        Word nodes and documents without a label (:attr:`unlabeled`) have label -1 and belong
        to no mask (the test mask holds the labelled test documents, :meth:`labelled_test`).
        ``edge_index`` is int64 (a copy when the graph holds int32 maps); ``edges=False``
        leaves the edges out (masks and labels).
        """
        n, d = self.num_nodes, self.num_docs
        y = torch.full((n,), -1, dtype=torch.long)
        y[:d] = torch.from_numpy(self.labels)
        if self.unlabeled is not None:
            y[:d][torch.from_numpy(self.unlabeled)] = -1  # their label field is a placeholder
        train_docs = np.flatnonzero(self.is_train)
        val_docs = self.validation_docs(val_ratio, seed)
        masks = {name: torch.zeros(n, dtype=torch.bool) for name in ("train", "val", "test")}
        masks["train"][torch.from_numpy(train_docs)] = True
        masks["train"][torch.from_numpy(val_docs)] = False
        masks["val"][torch.from_numpy(val_docs)] = True
        masks["test"][torch.from_numpy(self.labelled_test())] = True
        graph = {"edge_index": torch.from_numpy(np.asarray(self.edge_index, dtype=np.int64)),
                 "edge_weight": torch.from_numpy(self.edge_weight)} if edges else {}
        return Data(
            **graph,
            y=y,
            num_nodes=n,
            num_docs=d,
            train_mask=masks["train"],
            val_mask=masks["val"],
            test_mask=masks["test"],
        )


# ---------------------------------------------------------------------------------------------
# Building and caching


def build_graph_from_tokens(
    tc: TokenizedCorpus, corpus: Corpus, config: GraphConfig, tokenizer: str
) -> TextGraph:
    """The graph of an already tokenized corpus, in one process and one pass.

    The simple reference that :func:`build_text_graph`'s sharded, parallel build is tested
    against (same edges, same weights).
    """
    tfidf, idf = tfidf_matrix(tc)
    pair_windows, word_windows, num_windows = window_counts(tc, config.window, config.cooccurrence)
    ppmi = ppmi_matrix(pair_windows, word_windows, num_windows)
    num_doc_word, num_word_word = int(tfidf.nnz), int(ppmi.nnz // 2)
    edge_index, edge_weight = bmat_edges(tfidf, ppmi)
    del tfidf, ppmi
    return _graph_from_parts(edge_index, edge_weight, num_doc_word, num_word_word, idf,
                             num_windows, tc.vocab, tc.word_count, tc.doc_lengths, corpus,
                             config, tokenizer)


def build_graph_from_counts(
    counts: CorpusCounts, corpus: Corpus, config: GraphConfig, tokenizer: str,
    phases: dict[str, float] | None = None,
) -> TextGraph:
    """The graph from the sharded counts of :func:`gfbgcn.text.graph.sharded.count_corpus`
    (``phases``: see :func:`~gfbgcn.text.graph.sharded.count_corpus`)."""
    with timed(phases, "tf-idf"):
        tfidf, idf = tfidf_from_counts(counts.doc_word)
    counts.doc_word = None  # type: ignore[assignment]  # free as we go: large corpora
    upper, counts.pairs_upper = counts.pairs_upper, None  # type: ignore[assignment]
    with timed(phases, "ppmi"):
        upper = positive_pmi_upper(upper, counts.word_windows, counts.num_windows)  # in place
    num_doc_word, num_word_word = int(tfidf.nnz), int(upper.nnz)
    parts = [tfidf, upper]
    del tfidf, upper  # edges_from_upper frees them as it goes; the counts' garbage goes first
    release_free_memory()
    with timed(phases, "edges"):
        edge_index, edge_weight = edges_from_upper(parts)  # bmat's order, without bmat
    return _graph_from_parts(edge_index, edge_weight, num_doc_word, num_word_word, idf,
                             counts.num_windows, counts.vocab, counts.word_count,
                             counts.doc_lengths, corpus, config, tokenizer)


def _graph_from_parts(
    edge_index: np.ndarray, edge_weight: np.ndarray, num_doc_word: int, num_word_word: int,
    idf: np.ndarray, num_windows: int, vocab: list[str], word_count: np.ndarray,
    doc_lengths: np.ndarray, corpus: Corpus, config: GraphConfig, tokenizer: str,
) -> TextGraph:
    notes = list(corpus.notes)
    empty = np.flatnonzero(doc_lengths == 0)
    if len(empty):
        # on short texts stop words and min_freq empty many documents (mpqa-opinion: 2,664
        # of 10,603 phrases with both, 1,603 with min_freq 5 alone, 104 with the English stop
        # list alone), so say which are on and how to keep the words
        why = (f"; stop words '{config.stop_words}' are on (--stop-words none keeps them)"
               if config.stop_words else "")
        why += (f"; --min-freq {config.min_freq} drops rarer words"
                if config.min_freq > 1 else "")
        notes.append(
            f"{len(empty)} of {len(doc_lengths)} document(s) have no token left after cleaning "
            f"(e.g. index {int(empty[0])}); they stay as nodes with only their self-loop{why}"
        )
    return TextGraph(
        edge_index=edge_index,
        edge_weight=edge_weight,
        num_docs=len(doc_lengths),
        vocab=vocab,
        idf=idf,
        word_count=word_count,
        doc_lengths=doc_lengths.astype(np.int64),
        labels=corpus.label_ids(),
        label_names=corpus.label_names,
        is_train=corpus.is_train.copy(),
        num_doc_word=num_doc_word,
        num_word_word=num_word_word,
        num_windows=num_windows,
        config=config,
        tokenizer=tokenizer,
        corpus_name=corpus.name,
        notes=notes,
        unlabeled=_unlabeled(corpus),
    )


def _unlabeled(corpus: Corpus) -> np.ndarray | None:
    """A copy of the corpus's flags of documents without a label (None: every one has one)."""
    return None if corpus.unlabeled is None else corpus.unlabeled.copy()


def load_graph_file(path: str | Path, key: str) -> TextGraph:
    """The cached graph built for ``key`` (``graph.cache_path`` and ``graph.key``: another
    process of a command loads it so), its edge arrays mapped from the file where it allows
    (:func:`gfbgcn.text.graph.cache.read_graph`).  ``ValueError`` where its key or metadata
    disagree with its arrays (the caller warns and rebuilds)."""
    fields = read_graph(path, key)
    graph = TextGraph(config=GraphConfig(**fields.pop("config")), from_cache=True,
                      cache_path=str(path), **fields)
    check_cached_graph(graph)
    return graph


def build_text_graph(
    corpus: Corpus,
    config: GraphConfig | None = None,
    tokenizer: Tokenizer = textgcn_tokenize,
    *,
    cache: bool = True,
    cache_root: str | Path | None = None,
    workers: int | None = None,
) -> TextGraph:
    """Build (or load from the on-disk cache) the Text GCN graph of ``corpus``.

    The build runs shard by shard on ``workers`` processes (default: every available core; see
    :mod:`gfbgcn.text.graph.sharded`); the graph does not depend on ``workers``.

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
    path = Path(cache_root or cache_dir("graphs", create=False)) / f"{corpus.name}-{key}.npz"
    if use_cache and path.is_file():
        try:
            problem = check_seal(path, key)  # cheap: the zip directory, not the arrays
            if problem is None:
                graph = load_graph_file(path, key)
                graph.unlabeled = _unlabeled(corpus)  # not cached: the corpus's own
                touch(path)  # used now: the cache's size cap evicts the least recently used
                return graph
            warnings.warn(f"ignoring graph cache {path}: {problem}; rebuilding it",
                          stacklevel=2)
        except FileNotFoundError:  # evicted or cleared by another process since is_file():
            pass  # a miss, rebuilt (the arrays of a load already begun stay readable)
        except Exception as err:  # noqa: BLE001 - truncated zip, bad CRC, ...: only a cache
            warnings.warn(f"ignoring corrupt graph cache {path} ({type(err).__name__}: {err}); "
                          "rebuilding it", stacklevel=2)
    start, phases = time.perf_counter(), dict[str, float]()
    counts = count_corpus(
        corpus.texts, tokenizer, min_freq=config.min_freq, stop_words=config.stop_words,
        window=config.window, cooccurrence=config.cooccurrence, workers=workers, phases=phases,
    )
    graph = build_graph_from_counts(counts, corpus, config, tok_key or "custom", phases)
    graph.key = key
    with timed(phases, "cache write"):
        if use_cache and write_to_cache(lambda: write_graph(graph, path), path):
            graph.cache_path = str(path)  # an unwritable cache is warned about, not fatal
    graph.build_seconds = time.perf_counter() - start - phases["cache write"]
    graph.build_phases = phases
    return graph

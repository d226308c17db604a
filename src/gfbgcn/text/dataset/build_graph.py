"""``gfbgcn.build_graph``: the Text GCN graph of a corpus, as training builds it, without
training.

The graph settings are the classifier's (:data:`GRAPH_PARAMETERS` of
:data:`gfbgcn.text.params.PARAMETERS`, resolved for the corpus by
:meth:`gfbgcn.TextGCNClassifier.resolve_settings`, the defaults of a benchmark being the
paper's) and the graph goes through the same on-disk cache
(:func:`gfbgcn.text.graph.text_graph.build_text_graph`): ``build_graph(X, y)`` and
``TextGCNClassifier().fit(X, y)`` build, or find, the same graph, and its
:meth:`~gfbgcn.text.graph.text_graph.TextGraph.to_pyg` masks are the validation split that
``fit`` with the same ``val_ratio`` and ``random_state`` trains with.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from gfbgcn.core.errors import InputError
from gfbgcn.core.validate import SEED_MAX, check_option
from gfbgcn.text.corpus.benchmarks import benchmark_key, load_corpus
from gfbgcn.text.corpus.corpus import Corpus
from gfbgcn.text.estimator.classifier import TextGCNClassifier
from gfbgcn.text.estimator.inputs import fit_inputs
from gfbgcn.text.estimator.settings import FitSettings, RandomStateLike
from gfbgcn.text.graph.text_graph import TextGraph
from gfbgcn.text.params import DEFAULTS, PARAMETERS

#: The classifier's parameters that decide the graph (and whether it is cached), by name.
GRAPH_PARAMETERS: tuple[str, ...] = tuple(n for n, p in PARAMETERS.items() if p.group == "graph")


def graph_settings(benchmark: bool, val_ratio: float = DEFAULTS["val_ratio"],
                   random_state: RandomStateLike = DEFAULTS["random_state"],
                   **params: Any) -> FitSettings:
    """The classifier's settings for a graph of a corpus (``benchmark``: one of the paper's),
    every parameter checked: an :class:`~gfbgcn.core.errors.OptionError` names a bad value, a
    ``TypeError`` a parameter that is not one of :data:`GRAPH_PARAMETERS`.  A
    ``RandomState``/``Generator`` ``random_state`` is drawn from once (the run's seed)."""
    unknown = sorted(set(params) - set(GRAPH_PARAMETERS))
    if unknown:
        raise TypeError(f"build_graph() got unexpected parameter(s) {', '.join(unknown)}; the "
                        f"graph parameters are {', '.join(GRAPH_PARAMETERS)}")
    classifier = TextGCNClassifier(val_ratio=val_ratio, random_state=random_state, **params)
    return classifier.resolve_settings(benchmark)


def build_graph(
    X: Any, y: Any = None, *, X_unlabeled: Any = None,
    data_dir: str | os.PathLike[str] | None = None, text_col: str = "text",
    label_col: str = "label", split_col: str | None = None, split_seed: int = 0,
    skip_bad_rows: bool = False, encoding: str = "utf-8",
    val_ratio: float = DEFAULTS["val_ratio"],
    random_state: RandomStateLike = DEFAULTS["random_state"], **params: Any,
) -> TextGraph:
    """The Text GCN graph of a corpus, built (or read from the cache) with the settings and
    the cache of training, without training.

    ``X`` is one of:

    * documents (a list, array or Series of strings) with their labels ``y``, and optionally
      ``X_unlabeled``: the graph ``TextGCNClassifier().fit(X, y, X_unlabeled=...)`` trains on
      (the labelled documents are its training split, the unlabeled ones its test split, with
      ``y`` -1 and no mask in :meth:`~gfbgcn.text.graph.text_graph.TextGraph.to_pyg`);
    * a benchmark name (``20ng``, ``r8``, ``r52``, ``ohsumed``; read from ``data_dir``, else
      ``$GFBGCN_DATA``, downloaded where it can be) or the path of a CSV/TSV/JSONL corpus
      file, read with ``text_col``, ``label_col``, ``split_col``, ``split_seed``,
      ``skip_bad_rows`` and ``encoding`` as ``gfbgcn data build --dataset`` reads them (its
      own train/test split);
    * a :class:`~gfbgcn.text.corpus.corpus.Corpus`.

    ``params``: the graph parameters of :class:`gfbgcn.TextGCNClassifier`
    (:data:`GRAPH_PARAMETERS`: ``window``, ``min_freq``, ``stop_words``, ``cooccurrence``,
    ``tokenizer``, ``no_numbers``, ``cjk_split``, ``cache``, ``build_workers``), with its
    defaults (a benchmark's are the paper's).  ``val_ratio`` and ``random_state`` (as the
    classifier takes them) set the graph's validation split: ``graph.to_pyg()`` holds the
    masks that ``fit`` with the same values trains with.

    Every parameter is checked before the corpus is read; a bad one is a one-line
    :class:`~gfbgcn.core.errors.OptionError` naming it.  Returns the
    :class:`~gfbgcn.text.graph.text_graph.TextGraph` (``stats()``, ``to_pyg()``,
    ``cache_path``: the cache file holding it).

    Example::

        import gfbgcn

        graph = gfbgcn.build_graph("r8")        # the paper's R8 graph, cached
        data = graph.to_pyg()                   # a torch_geometric.data.Data
        graph = gfbgcn.build_graph(["cheap flights", "goal!"], ["travel", "sport"])
    """
    benchmark = _benchmark_input(X, y, X_unlabeled)
    settings = graph_settings(benchmark, val_ratio, random_state, **params)  # before reading
    check_option("split_seed", split_seed, 0, SEED_MAX, whole=True)
    corpus = _read_input(X, y, X_unlabeled, data_dir, text_col=text_col,
                         label_col=label_col, split_col=split_col, seed=split_seed,
                         skip_bad_rows=skip_bad_rows, encoding=encoding)
    graph = settings.build_graph(corpus)  # its unlabeled documents: the corpus's
    # the validation split fit draws: its ratio, seed and stratification
    graph.val_ratio, graph.seed = settings.train.val_ratio, settings.train.seed
    graph.stratify_validation = settings.stratify_validation
    return graph



def _benchmark_input(X: Any, y: Any, X_unlabeled: Any) -> bool:
    """Whether ``X`` is one of the paper's benchmarks (its graph defaults are the paper's);
    a corpus (by name, file or object) given ``y`` or ``X_unlabeled`` is refused."""
    if isinstance(X, (str, os.PathLike, Corpus)) and (y is not None or
                                                       X_unlabeled is not None):
        raise InputError("y and X_unlabeled go with documents: X is a "
                         f"{'corpus' if isinstance(X, Corpus) else 'corpus name or file'}, "
                         "which holds its labels and its split")
    if isinstance(X, Corpus):
        return X.benchmark is not None
    return isinstance(X, (str, os.PathLike)) and benchmark_key(os.fspath(X)) is not None


def _read_input(X: Any, y: Any, X_unlabeled: Any, data_dir: str | os.PathLike[str] | None,
                **table: Any) -> Corpus:
    """The corpus of ``build_graph``'s input: as given, read by name or from a file
    (``table``: how, as :func:`~gfbgcn.text.corpus.benchmarks.load_corpus` takes it), or made
    of documents as ``fit`` makes it (its ``X_unlabeled`` flagged ``unlabeled``)."""
    if isinstance(X, Corpus):
        return X
    if isinstance(X, (str, os.PathLike)):
        root = None if data_dir is None else Path(data_dir)
        return load_corpus(os.fspath(X), root, **table)
    return fit_inputs(X, y, X_unlabeled).corpus

"""gfbgcn: Graph Convolutional Networks with Generalized Factorized Bilinear aggregation.

The Python API of text classification (imported when first used, so ``import gfbgcn`` stays
fast):

* :class:`TextGCNClassifier`: a scikit-learn classifier of raw documents
  (:mod:`gfbgcn.text.estimator`): ``fit``, ``predict``, ``predict_proba``, ``score``, ``save``;
* :func:`load`: a saved model's predictor;
* :func:`load_benchmark_texts_and_labels`: the texts and labels of a benchmark (20ng, r8, r52,
  ohsumed);
* :func:`build_graph`: the Text GCN graph of documents, a benchmark or a corpus file, as
  training builds it, without training (``graph.to_pyg()``: a PyG ``Data``);
* :class:`TextGraphDataset`: a benchmark's graph as a PyG ``InMemoryDataset``
  (``TextGraphDataset(root, "R8")``).
* :func:`draw_run`: a training run's figures (training curves, confusion matrix).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gfbgcn._version import __version__

__all__ = ["TextGCNClassifier", "TextGraphDataset", "__version__", "build_graph", "draw_run",
           "load",
           "load_benchmark_texts_and_labels"]

if TYPE_CHECKING:
    import torch

    from gfbgcn.text.dataset.text_graph_dataset import TextGraphDataset
    from gfbgcn.text.estimator.classifier import TextGCNClassifier
    from gfbgcn.text.graph.text_graph import TextGraph
    from gfbgcn.text.predict.combined import CombinedPredictor
    from gfbgcn.text.predict.inductive import InductiveTextGCN
    from gfbgcn.text.tokenize.clean import Tokenizer


def load(path: str | os.PathLike[str], *, tokenizer: Tokenizer | None = None,
         self_embedding: str | None = None, device: str | torch.device | None = None,
         encoder: str | None = None) -> InductiveTextGCN | CombinedPredictor:
    """Load a model saved by ``gfbgcn train ... --save PATH`` or ``TextGCNClassifier.save``;
    see :mod:`gfbgcn.text.predict.saved`.

    ``device="cpu"|"cuda"|"cuda:N"|"auto"`` (default ``auto``: the first CUDA GPU if torch
    sees one, else the CPU) places it; a model saved on one device loads on any other.

    ``model.predict(["text", ...])`` returns labels and probabilities,
    ``model.predict_proba(texts)`` the ``[n, classes]`` probabilities.  A model chosen by
    ``train --auto`` may be a graph model combined with TF-IDF + logistic regression
    (:class:`gfbgcn.text.predict.combined.CombinedPredictor`); it is used the same way.
    This predictor classifies every document inductively; ``TextGCNClassifier.load(path)``
    gives the same model as a fitted scikit-learn classifier (``predictor_`` is this object),
    which also recognises the documents it was fitted on.

    ``tokenizer``: the callable a model trained with a custom tokenizer needs again;
    ``self_embedding``: ``"zero"`` or ``"mean"``, a new document's own layer-1 embedding
    (default: as saved); ``encoder``: where the sentence encoder of a model trained with one
    is now, when it is no longer where it was trained (the same files: checked).
    """
    from gfbgcn.text.predict.saved import load_model

    return load_model(Path(path), tokenizer=tokenizer, self_embedding=self_embedding,
                      device=device, encoder=encoder)


def load_benchmark_texts_and_labels(
    name: str, subset: str = "train", *, data_dir: str | Path | None = None, download: bool = True
) -> tuple[list[str], list[str]]:
    """``(texts, labels)`` of a text benchmark (``20ng``, ``r8``, ``r52``, ``ohsumed``): its
    standard ``"train"`` or ``"test"`` split, or ``"all"``, in file order.

    Read from the data root (``data_dir``, else ``$GFBGCN_DATA``, else the user cache dir),
    downloaded there with a sha256 check where a canonical source exists and ``download``.
    """
    from gfbgcn.text.corpus.benchmarks import load_benchmark_texts_and_labels

    return load_benchmark_texts_and_labels(name, subset, data_dir, download)


def build_graph(X: Any, y: Any = None, **kwargs: Any) -> TextGraph:
    """The Text GCN graph of documents ``X`` with labels ``y`` (and ``X_unlabeled``), of a
    benchmark by name (``"r8"``) or of a CSV/TSV/JSONL corpus file, built (or read from the
    cache) with the graph settings and the cache of training, without training.  Keyword
    arguments: the graph parameters of :class:`TextGCNClassifier` (``window``,
    ``min_freq``, ``stop_words``, ...), ``val_ratio`` and ``random_state`` (the split of
    ``graph.to_pyg()``'s masks, as ``fit`` draws it) and a corpus file's columns; see
    :func:`gfbgcn.text.dataset.build_graph.build_graph`."""
    from gfbgcn.text.dataset.build_graph import build_graph as build

    return build(X, y, **kwargs)


def draw_run(source: str | os.PathLike[str] | TextGCNClassifier,
             directory: str | os.PathLike[str] | None = None) -> list[Path]:
    """Draw a training run's figures to PNG (needs matplotlib: ``pip install
    'gfbgcn[figures]'``); returns the files written.

    ``curves.png``: the training and validation losses (log scale where they span a decade
    or more) and the validation accuracy (multi-label: micro and macro F1) per epoch, with the
    best epoch, the one whose weights were kept, marked; ``confusion.png``: the test
    documents' confusion matrix, labels in the model's order, cells coloured by their share of
    the true label's documents (single-label); ``label_f1.png``: each label's test F1
    (multi-label).  ``gfbgcn train --out`` and ``TextGCNClassifier.write_run`` draw them into
    the run directory already, where matplotlib is installed.

    ``source``: a run directory (``gfbgcn train --out``, ``TextGCNClassifier.write_run``; the
    figures go into it unless ``directory`` is given), or a fitted
    :class:`TextGCNClassifier` (``fit_corpus`` gives it test documents; ``directory``
    required).
    """
    from gfbgcn.text.estimator.classifier import TextGCNClassifier
    from gfbgcn.text.estimator.outcome import draw_fitted_run
    from gfbgcn.text.train.run_files import draw_run as draw_run_dir

    target = None if directory is None else Path(directory)
    if not isinstance(source, TextGCNClassifier):
        return draw_run_dir(Path(source), target)
    if target is None:
        raise TypeError("draw_run(classifier, directory): say where the figures go")
    return draw_fitted_run(source, target)


def __getattr__(name: str) -> Any:
    if name == "TextGCNClassifier":
        from gfbgcn.text.estimator.classifier import TextGCNClassifier

        return TextGCNClassifier
    if name == "TextGraphDataset":
        from gfbgcn.text.dataset.text_graph_dataset import TextGraphDataset

        return TextGraphDataset
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))

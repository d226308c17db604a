"""gfbgcn: Graph Convolutional Networks with Generalized Factorized Bilinear aggregation."""

__version__ = "0.1.0"


def load(path, **kwargs):
    """Load a model saved by ``gfbgcn train ... --save PATH``; see :mod:`gfbgcn.text.predict.saved`.

    ``device="cpu"|"cuda"|"cuda:N"|"auto"`` (default ``auto``: the first CUDA GPU if torch
    sees one, else the CPU) places it; a model saved on one device loads on any other.

    ``model.predict(["text", ...])`` returns labels and probabilities,
    ``model.predict_proba(texts)`` the ``[n, classes]`` probabilities.  A model chosen by
    ``train --auto`` may be a graph model combined with TF-IDF + logistic regression
    (:class:`gfbgcn.text.predict.combined.CombinedPredictor`); it is used the same way.
    """
    from gfbgcn.text.predict.saved import load_model

    return load_model(path, **kwargs)

"""``TextGCNClassifier``: Text GCN / GFB-GCN as a scikit-learn classifier of raw documents."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from gfbgcn.core.device import resolve_device
from gfbgcn.core.errors import UserError
from gfbgcn.text.search.auto import AutoResult, parse_budget, run_auto
from gfbgcn.text.corpus.corpus import Corpus, check_documents
from gfbgcn.text.estimator import persist, settings
from gfbgcn.text.estimator.fitted import inductive_predictor, load_fitted, save_fitted
from gfbgcn.text.estimator.inputs import class_labels, labelled_corpus
from gfbgcn.text.estimator.transductive import Transductive, warn_if_all_inductive
from gfbgcn.text.graph.text_graph import GraphConfig, TextGraph, build_text_graph
from gfbgcn.text.predict.combined import mix
from gfbgcn.text.predict.saved import trained_settings
from gfbgcn.text.tokenize.clean import Tokenizer
from gfbgcn.text.train import run as training  # training.train_text: looked up per call
from gfbgcn.text.train.checks import check_has_words
from gfbgcn.text.train.config import TrainConfig, TrainResult
from gfbgcn.text.train.models import INDUCTIVE_MODELS


class TextGCNClassifier(ClassifierMixin, BaseEstimator):
    """Text GCN / GFB-GCN as a scikit-learn classifier of raw text documents.

    ``fit(X, y)`` takes the documents themselves: ``X`` a list, NumPy array or pandas Series
    of strings, ``y`` one class label per document (strings, integers, ...).  There is no
    vectorizer step: ``fit`` tokenizes the documents, builds their Text GCN graph (document and
    word nodes, TF-IDF and positive-PMI edges) and trains the model on it, holding out
    ``val_ratio`` of the documents (drawn with ``random_state``) for early stopping, as
    ``gfbgcn train`` does.  It works in ``Pipeline``, ``GridSearchCV`` and ``cross_val_score``.

    **Transductive and inductive prediction.**  Text GCN is transductive: the documents to
    classify are nodes of the graph it trains on.  Give them to ``fit`` as ``X_unlabeled``
    (their labels are never read): ``clf.fit(X, y, X_unlabeled=X_new).predict(X_new)``.
    ``predict`` classifies a document that was given to ``fit`` (in ``X`` or ``X_unlabeled``,
    recognised by its exact text) by the graph's output for its node, and any other document
    *inductively*: attached to the trained graph through its known words (TF-IDF with the
    training IDF), without retraining (:mod:`gfbgcn.text.predict.inductive`; two-layer models
    only, not ``sgc``/``gin``).  Cross-validation measures the inductive case, since its test
    folds are not given to ``fit``.  In a ``Pipeline``, ``X_unlabeled`` must pass the earlier
    steps as ``X`` does: with metadata routing on, ``Pipeline(..., transform_input=
    ["X_unlabeled"])`` and ``set_fit_request(X_unlabeled=True)``; when ``fit`` had
    ``X_unlabeled`` and ``predict`` finds none of its documents among the fitted ones, it warns
    (:class:`~gfbgcn.text.estimator.transductive.AllInductiveWarning`).

    **Parameters** (``gfbgcn train``'s settings and defaults; the option in brackets):
    ``model`` [--model] one of :data:`gfbgcn.text.train.models.MODELS`; ``hidden``,
    ``dropout``, ``lr``, ``weight_decay``, ``epochs`` (maximum), ``patience`` (early
    stopping), ``val_ratio``; ``random_state`` [--seed] seed of the weights, dropout and
    validation split, as scikit-learn takes it: an int in [0, 2**32 - 1] (NumPy integers too),
    ``None`` (drawn from NumPy's global generator), a ``numpy.random.RandomState`` or
    ``Generator`` (one draw per ``fit``); ``fit`` seeds generators of its own from it and leaves
    the caller's ``random``, ``numpy.random`` and torch generators as they were;
    ``fast_genvec``, ``fixed_lambda`` (gfb-* only); ``features`` ``"onehot"`` or
    ``"wordllama"``.  Graph: ``window``, ``min_freq``, ``stop_words`` (an NLTK
    language, a file, or ``None``), ``cooccurrence``; ``tokenizer``: ``"unicode"`` (``None``,
    the default, as for a corpus file), ``"textgcn"`` (the paper's ASCII cleaning, the CLI's
    default for the benchmarks), ``"whitespace"`` or a callable ``str -> list[str]``;
    ``no_numbers``, ``cjk_split`` (unicode).  ``batch_size``/``fanout``/``optimizer``/``row_budget``: mini-batch training
    (0: full batch); ``device``: ``"auto"``, ``"cpu"``, ``"cuda"``, ``"cuda:N"``; ``auto``:
    choose graph settings and model on the validation split (``--auto``; ``budget`` ``N``
    candidates or ``"Nm"`` minutes), which may choose the linear n-gram baseline itself
    (:mod:`gfbgcn.text.predict.baseline`) or the graph model combined with it, unless
    ``baseline=False`` (``--no-baseline``: no baseline fitted, no combination tried).  ``cache``: cache the graph on disk (``$GFBGCN_CACHE``);
    ``build_workers``: graph-building processes (``None``: every core); ``verbose``: progress.
    Nothing is checked before ``fit``; a bad value then raises a one-line
    :class:`~gfbgcn.core.errors.OptionError` naming the parameter, and bad ``X``/``y`` (lengths,
    a non-string document, a single class) a :class:`~gfbgcn.core.errors.UserError`.

    **Attributes** after ``fit``: ``classes_`` ``[C]`` sorted labels (the columns of
    ``predict_proba``); ``graph_`` the :class:`~gfbgcn.text.graph.text_graph.TextGraph`
    (``graph_.to_pyg()``); ``result_`` the :class:`~gfbgcn.text.train.config.TrainResult`
    (``result_.val`` validation metrics, ``history``, ``model``); ``auto_`` the search of
    ``auto=True`` (``None`` otherwise); ``predictor_`` the inductive predictor, the object
    :func:`gfbgcn.load` returns for the saved model.

    **Saving.**  ``save(path)`` writes the model directory that ``gfbgcn predict`` and
    :func:`gfbgcn.load` read (safetensors, no pickle), with the transductive outputs;
    ``TextGCNClassifier.load(path)`` returns the fitted classifier (``graph_``, ``result_`` are
    then ``None``: predictions only).  A custom tokenizer is not saved: pass it again to
    ``load`` (``tokenizer=``).  A pickle (joblib) holds what ``predict`` and ``save`` need,
    not the training state (``graph_``, ``result_``, ``auto_``: ``None`` once unpickled).
    """

    def __init__(
        self, *, model: str = "gfb-max", hidden: int = 200, dropout: float = 0.5,
        lr: float = 0.02, weight_decay: float = 0.0, epochs: int = 200, patience: int = 10,
        val_ratio: float = 0.1, random_state: settings.RandomStateLike = 0,
        fast_genvec: bool = False, fixed_lambda: float | None = None, features: str = "onehot",
        window: int = 20,
        min_freq: int = 5, stop_words: str | None = "english", cooccurrence: str = "window",
        tokenizer: str | Tokenizer | None = None, no_numbers: bool = False,
        cjk_split: str = "chars", batch_size: int = 0, fanout: int = 32, optimizer: str = "adam",
        row_budget: int = 0, device: str = "auto",
        auto: bool = False, budget: int | str | None = None, baseline: bool = True,
        cache: bool = True, build_workers: int | None = None, verbose: bool = False,
    ) -> None:
        self.model = model
        self.hidden = hidden
        self.dropout = dropout
        self.lr = lr
        self.weight_decay = weight_decay
        self.epochs = epochs
        self.patience = patience
        self.val_ratio = val_ratio
        self.random_state = random_state
        self.fast_genvec = fast_genvec
        self.fixed_lambda = fixed_lambda
        self.features = features
        self.window = window
        self.min_freq = min_freq
        self.stop_words = stop_words
        self.cooccurrence = cooccurrence
        self.tokenizer = tokenizer
        self.no_numbers = no_numbers
        self.cjk_split = cjk_split
        self.batch_size = batch_size
        self.fanout = fanout
        self.optimizer = optimizer
        self.row_budget = row_budget
        self.device = device
        self.auto = auto
        self.budget = budget
        self.baseline = baseline
        self.cache = cache
        self.build_workers = build_workers
        self.verbose = verbose

    # -- settings: checked with the command line's (gfbgcn.text.estimator.settings) ------------

    def train_config(self, seed: int | None = None) -> TrainConfig:
        """The training settings (an :class:`~gfbgcn.core.errors.OptionError` if one is bad).

        ``seed``: the run's seed; ``None`` derives it from ``random_state``
        (:func:`~gfbgcn.text.estimator.settings.run_seed`: a ``RandomState`` or ``Generator``
        is drawn from)."""
        if seed is None:
            seed = settings.run_seed(self.random_state)
        return settings.train_config(
            model=self.model, seed=seed, hidden=self.hidden, dropout=self.dropout,
            lr=self.lr, weight_decay=self.weight_decay, epochs=self.epochs,
            patience=self.patience, val_ratio=self.val_ratio, fast_genvec=self.fast_genvec,
            fixed_lambda=self.fixed_lambda, batch_size=self.batch_size, fanout=self.fanout,
            optimizer=self.optimizer, row_budget=self.row_budget,
            features=self.features)

    def graph_settings(self) -> tuple[Tokenizer, GraphConfig]:
        """The tokenizer and graph settings (checked like :meth:`train_config`)."""
        tokenizer, stop_words = settings.tokenization(
            self.tokenizer, no_numbers=self.no_numbers, cjk_split=self.cjk_split,
            stop_words="none" if self.stop_words is None else self.stop_words)
        config = GraphConfig(window=self.window, min_freq=self.min_freq, stop_words=stop_words,
                             cooccurrence=self.cooccurrence)
        settings.check_flag("cache", self.cache)
        settings.check_build_workers(self.build_workers)
        return tokenizer, config

    def build_graph(self, corpus: Corpus) -> TextGraph:
        """The Text GCN graph of ``corpus`` with these graph settings (cached on disk unless
        ``cache=False``; see :func:`~gfbgcn.text.graph.text_graph.build_text_graph`)."""
        tokenizer, config = self.graph_settings()
        return build_text_graph(corpus, config, tokenizer, cache=bool(self.cache),
                                workers=self.build_workers)

    # -- fitting ---------------------------------------------------------------------------

    def fit(self, X: Any, y: Any, X_unlabeled: Any = None) -> TextGCNClassifier:
        """Build the graph of ``X`` (and ``X_unlabeled``) and train on ``X``'s labels ``y``.

        ``X``, ``X_unlabeled``: lists, arrays or Series of strings (``[n]``, ``[m]``); ``y``:
        ``[n]`` labels.  ``X_unlabeled``: documents to classify transductively (see the class
        docstring).  Returns ``self``.
        """
        docs = check_documents(X, "X")
        classes, labels = class_labels(y, len(docs))
        extra = [] if X_unlabeled is None else check_documents(X_unlabeled, "X_unlabeled")
        self._fit(labelled_corpus(docs, labels, extra), None, classes)
        # X_unlabeled came last, with a placeholder label: not a label of graph_.to_pyg()
        self.graph_.unlabeled = np.r_[np.zeros(len(docs), bool), np.ones(len(extra), bool)]
        self._num_unlabeled = len(extra)
        return self

    def fit_corpus(self, corpus: Corpus, graph: TextGraph | None = None) -> TextGCNClassifier:
        """Train on a :class:`~gfbgcn.text.corpus.corpus.Corpus` with its own train/test split
        (what ``gfbgcn train`` does): its test documents are the transductive ones, and
        ``result_.test`` holds their metrics.  ``graph``: the corpus's graph, built with these
        settings, when already at hand (not with ``auto``, which builds its own)."""
        return self._fit(corpus, graph, None)

    def check_settings(self) -> None:
        """Check every parameter (as ``fit`` does before any work); an
        :class:`~gfbgcn.core.errors.OptionError` names the first bad one."""
        settings.check_random_state(self.random_state)
        self.train_config(seed=0)  # the other settings; nothing drawn from random_state
        self.graph_settings()
        resolve_device(self.device)
        settings.check_flag("auto", self.auto)
        settings.check_flag("baseline", self.baseline)
        if self.budget is not None:
            parse_budget(self.budget)

    def _fit(self, corpus: Corpus, graph: TextGraph | None, classes: np.ndarray | None
             ) -> TextGCNClassifier:
        self.check_settings()  # before any work
        config = self.train_config()  # the one draw from a RandomState random_state
        tokenizer, graph_config = self.graph_settings()
        device = resolve_device(self.device)
        auto = None
        if self.auto:
            if graph is not None:
                raise ValueError("auto=True builds its own graphs: give no graph")
            auto = self._search(corpus, config, tokenizer, graph_config)
            graph, result = auto.graph, auto.result
        else:
            graph = self.build_graph(corpus) if graph is None else graph
            check_has_words(graph.num_words, graph.config.min_freq)
            result = training.train_text(graph, config, progress=bool(self.verbose),
                                         device=device)
        self._set_fitted(corpus, graph, result, auto, classes, tokenizer)
        return self

    def _search(self, corpus: Corpus, config: TrainConfig, tokenizer: Tokenizer,
                graph_config: GraphConfig) -> AutoResult:
        """The ``--auto`` search (:func:`gfbgcn.text.search.auto.run_auto`)."""
        budget = parse_budget(self.budget) if self.budget is not None else None
        return run_auto(corpus, tokenizer, replace(config, features="onehot"), budget=budget,
                        stop_words=graph_config.stop_words,
                        cooccurrence=graph_config.cooccurrence, cache=bool(self.cache),
                        log=self._log, device=self.device, baseline=bool(self.baseline))

    def _log(self, message: str) -> None:
        if self.verbose:
            print(message, file=sys.stderr)

    def _set_fitted(self, corpus: Corpus, graph: TextGraph, result: TrainResult,
                    auto: AutoResult | None, classes: np.ndarray | None,
                    tokenizer: Tokenizer) -> None:
        """The fitted state.  What ``predict`` and ``save`` use is built here, so that they
        leave the classifier as it is (scikit-learn's ``check_dict_unchanged``): the
        transductive outputs, the inductive predictor (two-layer models) and the few settings
        a model directory records."""
        self.corpus_, self.graph_, self.result_, self.auto_ = corpus, graph, result, auto
        self._set_classes(graph.label_names, classes)
        self._tokenizer = tokenizer
        self._model_name = result.config.model
        self._num_unlabeled = 0  # fit(X_unlabeled=...) sets it: documents to find again
        self._outputs = self._transductive_outputs(corpus, result, auto)
        self._predictor: Any = None
        self._save_settings: dict[str, Any] | None = None
        if self._model_name in INDUCTIVE_MODELS:
            self._predictor = inductive_predictor(result, graph, auto, tokenizer)
            graph_part = getattr(self._predictor, "graph", self._predictor)
            graph_part.z_words  # noqa: B018 -- computed now, not by the first predict
            self._save_settings = trained_settings(result, graph, corpus)

    def _set_classes(self, names: list[str], classes: np.ndarray | list | None) -> None:
        """``classes_`` and where each one's column is among the model's ``names``."""
        self.classes_ = np.asarray(names if classes is None else classes)
        self._columns = np.array([names.index(str(c)) for c in self.classes_], dtype=np.int64)

    # -- predicting ------------------------------------------------------------------------

    def predict_proba(self, X: Any) -> np.ndarray:
        """``[n, C]`` class probabilities of the documents ``X``, columns in ``classes_``
        order: transductive for the documents given to ``fit``, inductive for others."""
        check_is_fitted(self, "classes_")
        docs = check_documents(X, "X")
        outputs = self._outputs
        rows = outputs.rows(docs)
        warn_if_all_inductive(rows, self._num_unlabeled)
        proba = np.empty((len(docs), outputs.probabilities.shape[1]), dtype=np.float64)
        seen = rows >= 0
        proba[seen] = outputs.probabilities[rows[seen]]
        new = np.flatnonzero(~seen)
        if len(new):
            proba[new] = self.predictor_.predict_proba([docs[i] for i in new])
        # the model's float32 softmax misses 1 by up to ~1e-7, which log_loss warns about:
        # renormalised in float64, each row sums to 1 within a few float64 eps
        proba /= proba.sum(axis=1, keepdims=True)
        return proba[:, self._columns]

    def predict(self, X: Any) -> np.ndarray:
        """``[n]`` the most probable class of each document of ``X`` (see
        :meth:`predict_proba`)."""
        proba = self.predict_proba(X)  # first: it says when the classifier is not fitted
        return self.classes_[np.argmax(proba, axis=1)]

    @staticmethod
    def _transductive_outputs(corpus: Corpus, result: TrainResult, auto: AutoResult | None
                              ) -> Transductive:
        """The fitted documents' probabilities (mixed with the linear model's when ``auto``
        chose the combination), found again by their text."""
        probs = result.probabilities
        chosen = auto.chosen if auto is not None else None
        if chosen is not None and chosen.predictor != "graph":
            probs = mix(probs, auto.baseline.probabilities, chosen.weight)
        return Transductive.of(corpus.texts, probs)

    @property
    def predictor_(self) -> Any:
        """The inductive predictor of documents not given to ``fit``: an
        :class:`~gfbgcn.text.predict.inductive.InductiveTextGCN` (or, chosen by ``auto``, a
        :class:`~gfbgcn.text.predict.combined.CombinedPredictor`); a
        :class:`~gfbgcn.core.errors.UserError` for sgc and gin, which have none."""
        check_is_fitted(self, "classes_")
        if self._predictor is None:
            raise UserError(f"{self._model_name} classifies only the documents given to fit "
                            f"(X or X_unlabeled): new documents need a two-layer model "
                            f"({', '.join(INDUCTIVE_MODELS)})")
        return self._predictor

    # -- saving and loading ----------------------------------------------------------------

    def save(self, path: str | Path, *, transductive: bool = True) -> Path:
        """Write the fitted model to directory ``path`` (see the class docstring); with
        ``transductive=False`` without the outputs of the fitted documents (``predict`` of the
        loaded model is then inductive for every document).  A custom tokenizer is not written:
        give it again to :meth:`load` or :func:`gfbgcn.load` (``tokenizer=``).  Returns the
        path."""
        check_is_fitted(self, "classes_")
        if self._predictor is None:
            settings.check_savable(self._model_name)  # sgc, gin: an OptionError naming the models
        if self._save_settings is None:
            raise UserError("this classifier was loaded from a model directory and holds no "
                            "training state to save: fit it again to save a new model")
        outputs = self._outputs if transductive else None
        entry = persist.estimator_entry(self.get_params(), self.classes_.tolist())
        return save_fitted(path, self._predictor, self._save_settings, entry, outputs)

    @classmethod
    def load(cls, path: str | Path, *, device: str | None = None,
             tokenizer: Tokenizer | None = None) -> TextGCNClassifier:
        """The fitted classifier saved in model directory ``path`` (by :meth:`save` or
        ``gfbgcn train --save``); ``device``, ``tokenizer`` as for :func:`gfbgcn.load`."""
        predictor, config, outputs = load_fitted(path, device, tokenizer)
        params = persist.params_from_config(config)
        known = cls().get_params()
        clf = cls(**{k: v for k, v in params.items() if k in known})
        clf.set_params(**{k: v for k, v in (("device", device), ("tokenizer", tokenizer))
                          if v is not None})
        clf.corpus_ = clf.graph_ = clf.result_ = clf.auto_ = None
        clf._set_classes(predictor.label_names, persist.classes_from_config(config))
        clf._outputs, clf._predictor, clf._tokenizer = outputs, predictor, tokenizer
        graph_part = getattr(predictor, "graph", predictor)
        graph_part.z_words  # noqa: B018 -- now, so that predict changes nothing (as after fit)
        clf._model_name, clf._save_settings = graph_part.model_name, None
        clf._num_unlabeled = 0  # not recorded in a model directory: no AllInductiveWarning
        return clf

    # -- pickling: what predict and save need, not the training state ----------------------

    def __getstate__(self) -> dict[str, Any]:
        """The pickled state (joblib, scikit-learn's parallel tools) holds what ``predict``
        and ``save`` need: the predictor, the transductive outputs and the settings a model
        directory records, about the size of the saved directory.  The training state
        (``corpus_``, ``graph_``, ``result_``, ``auto_``: the whole graph and the training
        texts, several times larger) is left out; it is ``None`` after unpickling, as after
        :meth:`load`."""
        state = dict(super().__getstate__())
        for name in ("corpus_", "graph_", "result_", "auto_"):
            if name in state:
                state[name] = None
        return state

    # -- scikit-learn's estimator tags: raw text in, not a numeric matrix ------------------

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array = False
        tags.input_tags.string = True
        tags.non_deterministic = True  # on CUDA (see gfbgcn.core.device); a seed on the CPU
        return tags

    def _more_tags(self) -> dict[str, Any]:  # scikit-learn < 1.6
        return {"X_types": ["string"], "non_deterministic": True}

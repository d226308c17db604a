"""``TextGCNClassifier``: Text GCN / GFB-GCN as a scikit-learn classifier of raw documents."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from gfbgcn.core.errors import OptionError, UserError
from gfbgcn.text.corpus.corpus import Corpus, check_documents
from gfbgcn.text.corpus.weights import check_known_classes, weighted_prior
from gfbgcn.text.estimator import persist, settings
from gfbgcn.text.estimator.fitted import inductive_predictor, load_fitted, save_fitted
from gfbgcn.text.estimator.fitting import (
    chosen_batching,
    doc_input_for,
    embed_corpus,
    finetune_model,
    fit_baseline,
    multi_label_predictor,
    multi_label_targets,
    shared_graph,
)
from gfbgcn.text.estimator.inputs import check_sample_weight, class_labels, labelled_corpus
from gfbgcn.text.estimator.outcome import transductive_outputs, write_fitted_run
from gfbgcn.text.estimator.settings import FitSettings, resolve_settings
from gfbgcn.text.estimator.targets import MultiLabelTargets, read_targets
from gfbgcn.text.estimator.tensorboard import TensorBoardLog, fit_log, watch_run
from gfbgcn.text.estimator.transductive import Transductive, warn_if_all_inductive
from gfbgcn.text.graph.text_graph import TextGraph
from gfbgcn.text.linear.baseline import BaselineResult
from gfbgcn.text.params import DEFAULTS
from gfbgcn.text.predict.combined import CombinedPredictor
from gfbgcn.text.predict.saved import trained_settings
from gfbgcn.text.search.auto import AutoResult, run_auto
from gfbgcn.text.search.pacing import Budget
from gfbgcn.text.tokenize.clean import Tokenizer
from gfbgcn.text.train import run as training  # training.train_text: looked up per call
from gfbgcn.text.train.batching import Batching
from gfbgcn.text.train.checks import check_has_words
from gfbgcn.text.train.config import TrainResult
from gfbgcn.text.train.distributed import launched_rank, torchrun_group
from gfbgcn.text.train.features.encoder import CorpusEmbeddings
from gfbgcn.text.train.models import INDUCTIVE_MODELS

Report = Callable[[str, Any], None]  # fit_corpus's report(event, value)
D = DEFAULTS  # the defaults of __init__'s signature
_silent: Report = lambda event, value: None  # noqa: E731


class TextGCNClassifier(ClassifierMixin, BaseEstimator):
    """Text GCN / GFB-GCN as a scikit-learn classifier of raw text documents.

    ``fit(X, y)`` takes the documents themselves: ``X`` a list, NumPy array or pandas Series
    of strings, ``y`` one class label per document (strings, integers, ...).  There is no
    vectorizer step: ``fit`` tokenizes the documents, builds their Text GCN graph (document and
    word nodes, TF-IDF and positive-PMI edges) and trains the model on it, holding out
    ``val_ratio`` of the documents (drawn with ``random_state``, stratified by class: every
    class of two or more documents has a validation document,
    :mod:`gfbgcn.text.corpus.splits`; at random for multi-label ``y`` and the paper's
    benchmarks) for early stopping, as ``gfbgcn train`` does.  It works in ``Pipeline``,
    ``GridSearchCV`` and ``cross_val_score``.

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

    **Parameters**: :data:`gfbgcn.text.params.PARAMETERS` (default, accepted values, help;
    ``gfbgcn train --help`` shows them).  ``random_state`` takes what scikit-learn's
    ``check_random_state`` takes (one draw per ``fit``), leaving the caller's generators be;
    ``tokenizer`` may be a callable ``str -> list[str]``; ``batch_size="auto"`` chooses after
    the graph is built; ``tokenizer``, ``stop_words`` and ``min_freq`` left at their defaults
    are the paper's for its four benchmarks (a :class:`~gfbgcn.text.corpus.corpus.Corpus` of
    :func:`~gfbgcn.text.corpus.benchmarks.load_benchmark`, as ``gfbgcn train --dataset r8``)
    and depend on the corpus's size otherwise (:func:`gfbgcn.text.params.graph_defaults`).
    Nothing is checked before ``fit``, which checks and resolves every parameter once
    (:meth:`resolve_settings`); a bad value raises a one-line
    :class:`~gfbgcn.core.errors.OptionError` naming the parameter, and bad ``X``/``y``
    (lengths, a non-string document, a single class) a :class:`~gfbgcn.core.errors.UserError`.
    ``multi_label=True``: ``y`` is a ``[n, L]`` 0/1 indicator matrix (NumPy or SciPy sparse,
    as ``MultiLabelBinarizer`` gives; ``classes_`` are then the column indices), each
    document's labels (lists, tuples or sets), or label sets joined by ``label_sep``
    (:mod:`gfbgcn.text.estimator.targets`); ``classes_`` are the single labels,
    ``predict_proba`` their sigmoid outputs and ``predict`` the labels at the threshold
    chosen on validation, in the form ``y`` had (joined labels: a ``[n, L]`` 0/1 matrix).

    **Attributes** after ``fit``: ``classes_`` ``[C]`` sorted labels (the columns of
    ``predict_proba``); ``graph_`` the :class:`~gfbgcn.text.graph.text_graph.TextGraph`
    (``graph_.to_pyg()``: its masks are the split training used; the graph alone, without
    training: :func:`gfbgcn.build_graph`); ``result_`` the
    :class:`~gfbgcn.text.train.config.TrainResult` (``result_.val`` validation metrics,
    ``history``, ``model``; ``result_.test`` those of the labelled test documents, ``None``
    where there is none: ``fit``'s ``X_unlabeled`` carry no label, so nothing is scored, and
    ``write_run`` says so); ``auto_`` the search of
    ``auto=True`` (``None`` otherwise); ``baseline_`` the linear n-gram baseline
    (:class:`~gfbgcn.text.linear.baseline.BaselineResult`, metrics in ``baseline_.test``)
    that :meth:`fit_corpus` fits beside the model with ``baseline=True`` (multi-label: one
    linear model per label, :mod:`gfbgcn.text.linear.multilabel`; ``None``
    otherwise); ``batching_`` what ``batch_size="auto"`` chose; ``predictor_`` the inductive
    predictor, the object :func:`gfbgcn.load` returns for the saved model.

    **Watching training.**  ``tensorboard=DIR`` logs every epoch of each fit (the losses, the
    validation metrics, the hyperparameters) for TensorBoard as it trains, one run directory
    per fit under ``DIR`` (``auto``: one per candidate;
    :mod:`gfbgcn.text.estimator.tensorboard`).  It is a constructor parameter, not a callback
    given to ``fit``, because scikit-learn's ``fit`` takes data only and every setting is a
    plain value of ``__init__``: ``clone``, ``get_params`` and ``GridSearchCV`` carry a
    directory name, and a pickled classifier keeps it, where a callback object would be shared
    by every clone (or not pickle).  A separate run per fit keeps a grid search's fits apart.
    The loops' own hook, for other loggers, is ``on_epoch`` of
    :func:`gfbgcn.text.train.run.train_text` (:data:`gfbgcn.text.train.hooks.EpochCallback`).
    After ``fit_corpus``, :meth:`write_run` writes the run directory with its figures
    (training curves, confusion matrix; :func:`gfbgcn.draw_run`).

    **Saving.**  ``save(path)`` writes the model directory that ``gfbgcn predict`` and
    :func:`gfbgcn.load` read (safetensors, no pickle), with the transductive outputs;
    ``TextGCNClassifier.load(path)`` returns the fitted classifier (``graph_``, ``result_`` are
    then ``None``: predictions only).  A custom tokenizer is not saved: pass it again to
    ``load`` (``tokenizer=``).  A pickle (joblib) holds what ``predict`` and ``save`` need,
    not the training state (``graph_``, ``result_``, ``auto_``: ``None`` once unpickled).
    """

    corpus_: Corpus | None  # the fitted state: None where fit made none, after load, unpickled
    graph_: TextGraph | None
    result_: TrainResult | None
    auto_: AutoResult | None
    baseline_: BaselineResult | None
    batching_: Batching | None
    classes_: np.ndarray
    _columns: np.ndarray  # each class's column among the model's labels
    _outputs: Transductive  # the outputs of the documents given to fit
    _predictor: Any  # the inductive predictor (None for sgc and gin)
    _model_name: str
    _threshold: float | None  # multi-label: the decision threshold (None: single-label)
    _targets: MultiLabelTargets | None  # multi-label: the form of y (None: joined labels)
    _num_unlabeled: int  # X_unlabeled documents given to fit
    _tokenizer: Tokenizer | None

    def __init__(  # the defaults: gfbgcn.text.params.PARAMETERS
        self, *, model: str = D["model"], hidden: int = D["hidden"],
        dropout: float = D["dropout"], lr: float = D["lr"],
        weight_decay: float = D["weight_decay"], epochs: int = D["epochs"],
        patience: int = D["patience"], val_ratio: float = D["val_ratio"],
        random_state: settings.RandomStateLike = D["random_state"],
        class_weight: str | dict[Any, float] | None = D["class_weight"],
        fast_genvec: bool = D["fast_genvec"], fixed_lambda: float | None = D["fixed_lambda"],
        features: str = D["features"], window: int = D["window"],
        min_freq: int | str = D["min_freq"], stop_words: str | None = D["stop_words"],
        cooccurrence: str = D["cooccurrence"],
        tokenizer: str | Tokenizer | None = D["tokenizer"], no_numbers: bool = D["no_numbers"],
        cjk_split: str = D["cjk_split"], batch_size: int | str = D["batch_size"],
        fanout: int = D["fanout"], optimizer: str = D["optimizer"],
        row_budget: int = D["row_budget"], device: str = D["device"],
        multi_label: bool = D["multi_label"], label_sep: str = D["label_sep"],
        auto: bool = D["auto"], budget: int | str | None = D["budget"],
        baseline: bool = D["baseline"],
        baseline_class_weight: str | dict[Any, float] | None = D["baseline_class_weight"],
        encoder: str | None = D["encoder"], encoder_finetune: bool = D["encoder_finetune"],
        cache: bool = D["cache"], build_workers: int | None = D["build_workers"],
        verbose: bool = D["verbose"], tensorboard: str | None = D["tensorboard"],
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
        self.class_weight = class_weight
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
        self.multi_label = multi_label
        self.label_sep = label_sep
        self.auto = auto
        self.budget = budget
        self.baseline = baseline
        self.baseline_class_weight = baseline_class_weight
        self.encoder = encoder
        self.encoder_finetune = encoder_finetune
        self.cache = cache
        self.build_workers = build_workers
        self.verbose = verbose
        self.tensorboard = tensorboard

    # -- fitting ---------------------------------------------------------------------------

    def fit(self, X: Any, y: Any, X_unlabeled: Any = None, sample_weight: Any = None
            ) -> TextGCNClassifier:
        """Build the graph of ``X`` (and ``X_unlabeled``) and train on ``X``'s labels ``y``.

        ``X``, ``X_unlabeled``: lists, arrays or Series of strings (``[n]``, ``[m]``); ``y``:
        ``[n]`` labels (``multi_label``: a ``[n, L]`` 0/1 indicator matrix, NumPy or SciPy
        sparse, as ``MultiLabelBinarizer`` gives; each document's labels as a list, tuple or
        set; or label sets joined by ``label_sep``: :mod:`gfbgcn.text.estimator.targets`).
        ``X_unlabeled``: documents to classify transductively (see the class docstring).
        ``sample_weight``: ``[n]`` numbers >= 0, each document's weight in the graph model's
        training and validation losses (times its class's, ``class_weight``) and in the fits
        of ``auto``'s linear models (scikit-learn's meaning; Python only).
        Returns ``self``.
        """
        docs = check_documents(X, "X")
        targets = None
        if self.multi_label:
            settings.check_label_sep(self.label_sep)
            targets = read_targets(y, len(docs), self.label_sep)
            classes, labels = targets.classes, targets.joined(self.label_sep)
        else:
            classes, labels = class_labels(y, len(docs))
        extra = [] if X_unlabeled is None else check_documents(X_unlabeled, "X_unlabeled")
        weights = check_sample_weight(sample_weight, len(docs))
        if weights is not None:  # X_unlabeled's: never read (no training loss holds them)
            weights = np.r_[weights, np.ones(len(extra))]
        # X_unlabeled comes last, flagged unlabeled: scored by no metric, -1 in graph_.to_pyg()
        self._fit(labelled_corpus(docs, labels, extra), None, classes, sample_weight=weights,
                  targets=targets)
        self._num_unlabeled = len(extra)
        return self

    def fit_corpus(self, corpus: Corpus, graph: TextGraph | None = None, *,
                   report: Report | None = None, settings: FitSettings | None = None,
                   sample_weight: Any = None) -> TextGCNClassifier:
        """Train on a :class:`~gfbgcn.text.corpus.corpus.Corpus` with its own train/test split
        (what ``gfbgcn train`` does): its test documents are the transductive ones, and
        ``result_.test`` holds their metrics (``None`` where none carries a label, the
        corpus's ``unlabeled``); with ``baseline``, ``baseline_`` is fitted on
        the same split.  ``graph``: the corpus's graph, built with these
        settings, when already at hand (not with ``auto``, which builds its own).
        ``report(event, value)``: told of the steps as they happen, ``("embeddings",
        CorpusEmbeddings)`` (with an ``encoder``), ``("graph", TextGraph)``, ``("batching",
        Batching)``, ``("labels", (Y, label names))`` (multi-label), ``("tensorboard",
        Path)`` (with ``tensorboard``: the directory this fit logs its epochs to, before the
        first one).
        ``settings``: this classifier's :meth:`resolve_settings` for ``corpus``, where the caller
        has already made them (``gfbgcn train`` does, so that a bad option fails before the
        corpus is read); otherwise they are made here.  ``sample_weight``: ``[len(corpus)]``,
        as :meth:`fit`'s (the baseline's fits take it too; a test document's is not read)."""
        self._fit(corpus, graph, None, report or _silent, baseline=True, settings=settings,
                  sample_weight=check_sample_weight(sample_weight, len(corpus)))
        return self

    def resolve_settings(self, benchmark: bool = False) -> FitSettings:
        """Every parameter checked and resolved for one fit on a corpus (``benchmark``: one of
        the paper's benchmarks), as ``fit`` does once before any work
        (:func:`~gfbgcn.text.estimator.settings.resolve_settings`); an
        :class:`~gfbgcn.core.errors.OptionError` names the first bad parameter.  A
        ``RandomState`` or ``Generator`` ``random_state`` is drawn from (the run's seed)."""
        return resolve_settings(self.get_params(), benchmark)

    def build_graph(self, corpus: Corpus) -> TextGraph:
        """The Text GCN graph of ``corpus`` with these graph settings, without training
        (cached on disk unless ``cache=False``; see
        :func:`~gfbgcn.text.graph.text_graph.build_text_graph`)."""
        return self.resolve_settings(corpus.benchmark is not None).build_graph(corpus)

    def _fit(self, corpus: Corpus, graph: TextGraph | None, classes: np.ndarray | None,
             report: Report = _silent, baseline: bool = False,
             settings: FitSettings | None = None,
             sample_weight: np.ndarray | None = None,
             targets: MultiLabelTargets | None = None) -> TextGraph:
        """Fit on ``corpus`` (see :meth:`fit_corpus`); the graph it trained on (``graph_``).
        ``classes``: ``classes_`` as ``y`` gave them (None: the corpus's label names);
        ``targets``: a multi-label ``y`` as :meth:`fit` read it (its form is given back)."""
        benchmark = corpus.benchmark is not None
        if settings is None:
            settings = self.resolve_settings(benchmark)  # once, before any work
        elif settings.benchmark != benchmark:
            raise ValueError("settings were resolved for another kind of corpus "
                             f"(benchmark={settings.benchmark}): resolve them for this one")
        if not self.multi_label:
            check_known_classes(settings.train.class_weight, corpus.label_names)
        if sample_weight is not None and settings.encoder_finetune:
            raise OptionError("{0} trains unweighted: fit without sample_weight",
                              "encoder_finetune")
        if self.auto and graph is not None:
            raise ValueError("auto=True builds its own graphs: give no graph")
        self.baseline_ = self.batching_ = auto = combination = labels = None
        embeddings = None if settings.encoder is None else embed_corpus(
            settings.encoder, corpus, settings.device, settings.cache, bool(self.verbose))
        if embeddings is not None:
            report("embeddings", embeddings)
        name = f"{'auto' if self.auto else settings.train.model}-seed{settings.train.seed}"
        # under torchrun, rank 0 logs (every rank trains the same model)
        with fit_log(settings.tensorboard if launched_rank() == 0 else None, name) as log:
            if log is not None:
                report("tensorboard", log.directory)
            if self.auto:
                auto = self._search(corpus, settings, embeddings, sample_weight, log)
                graph, result, label_names = auto.graph, auto.result, None
            else:
                graph, result, labels, combination = self._fit_graph_model(
                    corpus, graph, settings, report, embeddings, log, sample_weight, targets)
                label_names = None if labels is None else labels[1]
                if baseline and self.baseline:
                    self.baseline_ = fit_baseline(corpus, graph, result.config,
                                                  settings.linear_class_weight, labels,
                                                  embeddings, sample_weight)
        prior = weighted_prior(graph.labels, graph.label_names, result.config.class_weight,
                               sample_weight, graph.is_train,
                               None if labels is None else labels[0])
        self._set_fitted(corpus, graph, result, auto, classes, settings.tokenizer, label_names,
                         combination, prior)
        self._targets = targets
        return graph

    def _fit_graph_model(self, corpus: Corpus, graph: TextGraph | None, settings: FitSettings,
                         report: Report, embeddings: CorpusEmbeddings | None,
                         log: TensorBoardLog | None,
                         sample_weight: np.ndarray | None = None,
                         targets: MultiLabelTargets | None = None
                         ) -> tuple[TextGraph, TrainResult, Any, tuple[Any, float] | None]:
        """The one model of a fit without ``auto``: ``(graph, result, a multi-label run's
        (targets, label names), a fine-tuned (head, graph weight))``."""
        with torchrun_group(settings.train.batch_size):  # one process or torchrun's ranks
            if graph is None:
                graph = shared_graph(lambda: settings.build_graph(corpus))
            graph.stratify_validation = settings.stratify_validation  # the split drawn
            check_has_words(graph.num_words, graph.config.min_freq)
            report("graph", graph)
            if not settings.encoder_finetune:
                result, labels = self._train(corpus, graph, settings, report, embeddings, log,
                                             sample_weight, targets)
                return graph, result, labels, None
            assert settings.encoder is not None  # resolve_settings checked it
            result, head, weight = finetune_model(
                corpus, graph, settings.encoder, settings.train, settings.device,
                bool(self.verbose), lambda line: report("estimate", line),
                on_epoch=watch_run(log, settings.train, graph))
            return graph, result, None, (head, weight)

    def _train(self, corpus: Corpus, graph: TextGraph, settings: FitSettings, report: Report,
               embeddings: CorpusEmbeddings | None = None, log: TensorBoardLog | None = None,
               sample_weight: np.ndarray | None = None,
               targets: MultiLabelTargets | None = None
               ) -> tuple[TrainResult, tuple[np.ndarray, list[str]] | None]:
        """Train on ``graph`` (batching chosen first with ``batch_size="auto"``), its epochs
        logged to ``log``; the result and a multi-label run's ``(targets [D, L], label
        names)`` (``targets``: ``y`` as :meth:`fit` read it, whose labels and their order are
        the model's outputs)."""
        config = settings.train
        if settings.auto_batch:
            self.batching_, config = chosen_batching(config, graph, settings.device,
                                                     bool(self.multi_label))
            report("batching", self.batching_)
        labels = None
        if self.multi_label:  # labels joined by label_sep only: its warning
            labels = multi_label_targets(corpus, self.label_sep,
                                         None if targets is None else targets.names,
                                         warn=targets is None or targets.form == "joined")
        if labels is not None:
            report("labels", labels)
        result = training.train_text(graph, config, progress=bool(self.verbose),
                                     multilabel_targets=None if labels is None else labels[0],
                                     device=settings.device,
                                     doc_input=doc_input_for(config, corpus, graph,
                                                             embeddings),
                                     sample_weight=sample_weight,
                                     on_epoch=watch_run(log, config, graph))
        return result, labels

    def _search(self, corpus: Corpus, settings: FitSettings,
                embeddings: CorpusEmbeddings | None,
                sample_weight: np.ndarray | None = None, log: TensorBoardLog | None = None
                ) -> AutoResult:
        """The ``auto`` search (:func:`gfbgcn.text.search.auto.run_auto`), each candidate's
        epochs logged to ``log``."""
        graph_config = settings.graph_config(len(corpus))
        budget = settings.budget  # its clock starts now, with the search
        return run_auto(corpus, settings.tokenizer, replace(settings.train, features="onehot"),
                        budget=None if budget is None else Budget(budget.candidates,
                                                                  budget.minutes),
                        stop_words=graph_config.stop_words,
                        cooccurrence=graph_config.cooccurrence, cache=settings.cache,
                        log=self._log, device=settings.device, baseline=bool(self.baseline),
                        baseline_class_weight=settings.linear_class_weight, encoder=embeddings,
                        sample_weight=sample_weight,
                        stratify_validation=settings.stratify_validation,
                        watch=None if log is None else log.candidate)

    def _log(self, message: str) -> None:
        if self.verbose:
            print(message, file=sys.stderr)

    def _set_fitted(self, corpus: Corpus, graph: TextGraph, result: TrainResult,
                    auto: AutoResult | None, classes: np.ndarray | None,
                    tokenizer: Tokenizer, label_names: list[str] | None,
                    combination: tuple[Any, float] | None = None,
                    prior: np.ndarray | None = None) -> None:
        """The fitted state.  What ``predict`` and ``save`` use is built here, so that they
        leave the classifier as it is (scikit-learn's ``check_dict_unchanged``): the
        transductive outputs, the inductive predictor (two-layer models; ``prior``: its answer
        for a document without a known word where the training was weighted, else the
        training documents' label frequencies) and the few settings a model directory
        records."""
        self.corpus_, self.graph_, self.result_, self.auto_ = corpus, graph, result, auto
        # graph_.to_pyg() gives the validation split training drew (the run's seed)
        graph.val_ratio, graph.seed = result.config.val_ratio, result.config.seed
        self._set_classes(label_names or graph.label_names, classes)
        self._tokenizer = tokenizer
        self._model_name = result.config.model
        self._threshold = result.threshold if label_names is not None else None
        self._num_unlabeled = 0  # fit(X_unlabeled=...) sets it: documents to find again
        self._outputs = transductive_outputs(corpus, result, auto)
        self._predictor = None
        self._save_settings: dict[str, Any] | None = None
        if self._model_name not in INDUCTIVE_MODELS:
            return
        if label_names is not None:
            self._predictor = multi_label_predictor(result, graph, corpus, label_names,
                                                    self.label_sep, tokenizer, prior)
        else:
            self._predictor = inductive_predictor(result, graph, auto, tokenizer, combination,
                                                  prior)
        graph_part = getattr(self._predictor, "graph", self._predictor)
        graph_part.z_words  # noqa: B018 -- computed now, not by the first predict
        self._save_settings = trained_settings(
            result, graph, corpus, self.label_sep if label_names is not None else None)

    def _set_classes(self, names: list[str], classes: np.ndarray | list | None) -> None:
        """``classes_`` and where each one's column is among the model's ``names``."""
        self.classes_ = np.asarray(names if classes is None else classes)
        self._columns = np.array([names.index(str(c)) for c in self.classes_], dtype=np.int64)

    def write_run(self, out: str | Path, provenance: dict[str, Any] | None = None, *,
                  draw: bool | None = None) -> Path:
        """Write the fitted run to directory ``out`` as ``gfbgcn train --out`` does
        (``config.json``, ``history.csv``, ``metrics.json`` with ``baseline_``'s and
        ``auto_``'s metrics, ``predictions.csv``; :mod:`gfbgcn.text.estimator.outcome`), with
        its figures (:func:`gfbgcn.draw_run`) where ``draw`` (default: where matplotlib is
        installed; a figure that fails to draw leaves the run without figures and warns);
        ``provenance``: what made the run (``config.json``'s ``run`` entry)."""
        check_is_fitted(self, "classes_")
        if self.result_ is None:
            raise UserError("this classifier holds no training state (loaded or unpickled): "
                            "fit it again to write its run")
        return write_fitted_run(out, self, provenance, draw)

    # -- predicting: the documents given to fit by the graph's own outputs
    #    (gfbgcn.text.estimator.transductive), any other by the inductive predictor

    def predict_proba(self, X: Any) -> np.ndarray:
        """``[n, C]`` class probabilities of the documents ``X``, columns in ``classes_``
        order: transductive for the documents given to ``fit``, inductive for others
        (multi-label: each label's sigmoid output)."""
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
        if self._threshold is None:  # not multi-label, whose outputs are independent
            # the model's float32 softmax misses 1 by up to ~1e-7, which log_loss warns
            # about: renormalised in float64, each row sums to 1 within a few float64 eps
            proba /= proba.sum(axis=1, keepdims=True)
        return proba[:, self._columns]

    def predict(self, X: Any) -> Any:
        """``[n]`` the most probable class of each document of ``X`` (see
        :meth:`predict_proba`); multi-label: the labels at or above the threshold chosen on
        validation, in the form ``fit`` was given ``y`` (an indicator matrix of the same
        kind and dtype, a list of label lists in ``classes_`` order; label sets joined by
        ``label_sep``, and ``fit_corpus``: an ``[n, L]`` 0/1 ``int64`` matrix)."""
        proba = self.predict_proba(X)  # first: it says when the classifier is not fitted
        if self._threshold is None:
            return self.classes_[np.argmax(proba, axis=1)]
        indicator = (proba >= self._threshold).astype(np.int64)
        targets = getattr(self, "_targets", None)
        return indicator if targets is None else targets.give_back(indicator)

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """Mean accuracy on ``X`` against ``y`` (scikit-learn's ``ClassifierMixin.score``); a
        multi-label model: subset accuracy, each document's predicted label set against its
        true one (``y`` in any form ``fit`` takes; a label the model does not know counts as
        wrong), so ``cross_val_score`` works for both."""
        if not self.multi_label:
            return float(super().score(X, y, sample_weight))
        from sklearn.metrics import accuracy_score

        proba = self.predict_proba(X)
        assert self._threshold is not None  # a fitted multi-label model has one
        pred = proba >= self._threshold
        sets = read_targets(y, len(pred), self.label_sep, allow_empty=True).sets
        column = {str(c): j for j, c in enumerate(self.classes_)}
        truth = np.zeros_like(pred)
        unknown = np.zeros(len(sets), dtype=bool)
        for i, labels in enumerate(sets):
            for label in labels:
                if label in column:
                    truth[i, column[label]] = True
                else:
                    unknown[i] = True
        right = (truth == pred).all(axis=1) & ~unknown
        return float(accuracy_score(np.ones(len(sets)), right.astype(float),
                                    sample_weight=sample_weight))

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
        targets = getattr(self, "_targets", None)
        entry = persist.estimator_entry(self.get_params(), self.classes_.tolist(),
                                        None if targets is None else targets.record())
        return save_fitted(path, self._predictor, self._save_settings, entry, outputs)

    @classmethod
    def load(cls, path: str | Path, *, device: str | None = None,
             tokenizer: Tokenizer | None = None, encoder: str | None = None
             ) -> TextGCNClassifier:
        """The fitted classifier saved in model directory ``path`` (by :meth:`save` or
        ``gfbgcn train --save``); ``device``, ``tokenizer``, ``encoder`` as for
        :func:`gfbgcn.load`."""
        predictor, config, outputs = load_fitted(path, device, tokenizer, encoder)
        params = persist.params_from_config(config)
        known = cls().get_params()
        clf = cls(**{k: v for k, v in params.items() if k in known})
        clf.set_params(**{k: v for k, v in (("device", device), ("tokenizer", tokenizer),
                                            ("encoder", encoder)) if v is not None})
        clf.corpus_ = clf.graph_ = clf.result_ = clf.auto_ = clf.baseline_ = clf.batching_ = None
        classes = persist.classes_from_config(config, predictor.label_names, path)
        clf._set_classes(predictor.label_names, classes)
        clf._targets = persist.targets_from_config(config, classes, path)
        clf._outputs, clf._predictor, clf._tokenizer = outputs, predictor, tokenizer
        graph_part = predictor.graph if isinstance(predictor, CombinedPredictor) else predictor
        graph_part.z_words  # noqa: B018 -- now, so that predict changes nothing (as after fit)
        clf._model_name, clf._save_settings = graph_part.model_name, None
        clf._threshold = graph_part.threshold if graph_part.multi_label else None
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
        for name in ("corpus_", "graph_", "result_", "auto_", "baseline_"):
            if name in state:
                state[name] = None
        return state

    # -- scikit-learn's estimator tags: raw text in, not a numeric matrix ------------------

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array = False
        tags.input_tags.string = True
        tags.non_deterministic = True  # on CUDA (see gfbgcn.core.device); a seed on the CPU
        tags.classifier_tags.multi_label = bool(self.multi_label)  # y: an indicator matrix too
        return tags

    def _more_tags(self) -> dict[str, Any]:  # scikit-learn < 1.6
        return {"X_types": ["string"], "non_deterministic": True,
                "multilabel": bool(self.multi_label)}

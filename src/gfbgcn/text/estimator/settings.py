"""The settings of one training run, checked in one place for the command line and Python.

:class:`ClassifierSettings` (the settings side of :class:`gfbgcn.TextGCNClassifier`, which
``gfbgcn train`` builds from its options) turns the parameters into a tokenizer, a
:class:`~gfbgcn.text.graph.text_graph.GraphConfig` and a
:class:`~gfbgcn.text.train.config.TrainConfig` through these functions.  A value out of range or
options that do not go together raise an :class:`~gfbgcn.core.errors.OptionError` in one line
that names the Python parameter (``epochs must be >= 1, got 0``), which the command line
shows as its option (``--epochs must be ...``: :func:`gfbgcn.cli.parameters.with_flags`);
the defaults and ranges themselves are those of one table, :data:`gfbgcn.text.params.PARAMETERS`.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from gfbgcn.core.device import resolve_device
from gfbgcn.core.errors import OptionError, StopWordsError, TokenizerError
from gfbgcn.core.validate import SEED_MAX
from gfbgcn.text.corpus.corpus import Corpus
from gfbgcn.text.graph.text_graph import GraphConfig, TextGraph, build_text_graph
from gfbgcn.text.params import (
    AUTO,
    DEFAULTS,
    PAPER_STOP_WORDS,
    PARAMETERS,
    check_parameter,
    graph_defaults,
)
from gfbgcn.text.search.auto import parse_budget
from gfbgcn.text.tokenize.clean import Tokenizer
from gfbgcn.text.tokenize.registry import make_tokenizer
from gfbgcn.text.tokenize.stop_words import parse_stop_words
from gfbgcn.text.train.config import TrainConfig
from gfbgcn.text.train.models import INDUCTIVE_MODELS, check_model

#: The tokenizer of documents given from Python, as of a corpus file (any language).
DEFAULT_TOKENIZER = "unicode"


def tokenization(
    tokenizer: str | Tokenizer | None = DEFAULTS["tokenizer"], *,
    no_numbers: bool = DEFAULTS["no_numbers"], cjk_split: str = DEFAULTS["cjk_split"],
    stop_words: str | None = PAPER_STOP_WORDS,
) -> tuple[Tokenizer, str | None]:
    """``(tokenizer, stop-word setting)``: ``--tokenizer``, ``--no-numbers``, ``--cjk-split``
    and ``--stop-words``.

    ``tokenizer``: a built-in name (``textgcn``, ``unicode``, ``whitespace``; ``None``:
    :data:`DEFAULT_TOKENIZER`) or a callable ``str -> list[str]``; ``stop_words``: an NLTK
    language, a file with one word a line, ``"none"`` or ``None``.
    """
    name = DEFAULT_TOKENIZER if tokenizer is None else tokenizer
    check_parameter("no_numbers", no_numbers)
    check_parameter("cjk_split", cjk_split)
    if name != "unicode" and (no_numbers or cjk_split != "chars"):
        raise OptionError("{0} and {1} apply to the unicode tokenizer only", "no_numbers",
                          "cjk_split")
    if stop_words is not None and not isinstance(stop_words, str):
        raise OptionError("{0} must be a language, a file or none, got {value!r}",
                          "stop_words", value=stop_words)
    try:
        chosen = name if callable(name) else make_tokenizer(
            name, numbers=not no_numbers, cjk=cjk_split)
        stop = None if stop_words is None else parse_stop_words(stop_words)
    except (TokenizerError, StopWordsError) as err:
        raise OptionError(str(err)) from None
    return chosen, stop


#: What ``random_state`` accepts (checked by :func:`check_random_state`).
RandomStateLike = int | np.integer | np.random.RandomState | np.random.Generator | None
#: What ``random_state`` accepts, in words (scikit-learn's ``check_random_state``, and a Generator).
RANDOM_STATES = (f"None, a whole number {PARAMETERS['random_state'].range_text()}, a "
                 "numpy.random.RandomState or a numpy.random.Generator")


def check_random_state(random_state: RandomStateLike) -> None:
    """Refuse a ``random_state`` that :func:`run_seed` cannot use (an :class:`OptionError`),
    drawing nothing from it."""
    if random_state is None or isinstance(random_state, (np.random.RandomState,
                                                         np.random.Generator)):
        return
    if (not isinstance(random_state, numbers.Integral) or isinstance(random_state, bool)
            or not 0 <= int(random_state) <= PARAMETERS["random_state"].high):
        raise OptionError("{0} must be {accepted}, got {value!r}", "random_state",
                          accepted=RANDOM_STATES, value=random_state)


def run_seed(random_state: RandomStateLike) -> int:
    """The whole-number seed of one run (weights, dropout, validation split) from a
    ``random_state`` with scikit-learn's ``check_random_state`` meaning.

    An int or NumPy integer is the seed itself (``random_state=0`` trains what ``gfbgcn train
    --seed 0`` trains); a ``RandomState`` or ``Generator`` gives one draw (advancing it, as
    scikit-learn's estimators do); ``None`` draws from NumPy's global ``RandomState``, as
    ``check_random_state(None)`` does.  The run then seeds generators of its own from it
    (:func:`gfbgcn.core.runinfo.torch_seeded`), never the global ones.
    """
    from sklearn.utils import check_random_state as sklearn_random_state

    check_random_state(random_state)
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(0, SEED_MAX, endpoint=True))
    if isinstance(random_state, numbers.Integral):
        return int(random_state)
    rng = sklearn_random_state(random_state)  # None: NumPy's global RandomState
    return int(rng.randint(0, SEED_MAX + 1, dtype=np.int64))


def layer_options(model: str, fast_genvec: bool, fixed_lambda: float | None) -> dict:
    """The second layer's options: ``fast_genvec`` and ``fixed_lambda`` (gfb-* only)."""
    check_model(model)
    check_parameter("fast_genvec", fast_genvec)
    check_parameter("fixed_lambda", fixed_lambda)
    if not model.startswith("gfb-"):
        if fast_genvec or fixed_lambda is not None:
            raise OptionError("{0} and {1} apply to gfb-* models only", "fast_genvec",
                              "fixed_lambda")
        return {}
    options: dict = {"exact": not fast_genvec}
    if fixed_lambda is not None:
        options["lambda_init"] = float(fixed_lambda)
    return options


#: The estimator's parameters that make its :class:`TrainConfig` (``random_state``: ``seed``).
TRAIN_PARAMETERS = ("model", "hidden", "dropout", "lr", "weight_decay", "epochs", "patience",
                    "val_ratio", "fast_genvec", "fixed_lambda", "batch_size", "fanout",
                    "features", "multi_label", "optimizer", "row_budget")


def train_config(*, seed: int = DEFAULTS["random_state"], **params: Any) -> TrainConfig:
    """The :class:`TrainConfig` of the classifier's training parameters ``params`` (of
    :data:`TRAIN_PARAMETERS`; a missing one takes its default, :data:`gfbgcn.text.params.
    PARAMETERS`) and the run's ``seed``; every value is checked (``TrainConfig`` checks the
    ranges, :func:`~gfbgcn.text.train.checks.check_train_settings`)."""
    unknown = sorted(set(params) - set(TRAIN_PARAMETERS))
    if unknown:
        raise TypeError(f"train_config() got unknown parameters {', '.join(unknown)}")
    p = {name: params.get(name, DEFAULTS[name]) for name in TRAIN_PARAMETERS}
    options = layer_options(p["model"], p["fast_genvec"], p["fixed_lambda"])
    check_parameter("multi_label", p["multi_label"])
    if p["multi_label"] and p["batch_size"]:  # checked here only: TrainConfig has no labels
        raise OptionError("{0} supports single-label training only: drop {0} or {1}",
                          "batch_size", "multi_label")
    return TrainConfig(
        model=p["model"], seed=seed, hidden=p["hidden"], dropout=p["dropout"], lr=p["lr"],
        weight_decay=p["weight_decay"], epochs=p["epochs"], patience=p["patience"],
        val_ratio=p["val_ratio"], train_lambda=p["fixed_lambda"] is None,
        layer_options=options, batch_size=p["batch_size"], fanout=p["fanout"],
        features=p["features"], optimizer=p["optimizer"], row_budget=p["row_budget"],
    )


def check_savable(model: str) -> None:
    """Refuse to save a model that cannot classify new documents (``--save``: sgc, gin)."""
    if model not in INDUCTIVE_MODELS:
        raise OptionError("{0} supports the two-layer models only ({models}), not {model}",
                          "save", models=", ".join(INDUCTIVE_MODELS), model=model)


def check_label_sep(label_sep: object) -> None:
    """``label_sep``: a non-empty string."""
    if not isinstance(label_sep, str) or not label_sep:
        raise OptionError("{0} must be a non-empty string, got {value!r}", "label_sep",
                          value=label_sep)


class ClassifierSettings:
    """The settings side of :class:`gfbgcn.TextGCNClassifier`: its parameters turned into
    checked training and graph settings (its ``__init__`` sets the attributes)."""

    model: str
    random_state: RandomStateLike
    batch_size: int | str
    tokenizer: str | Tokenizer | None
    no_numbers: bool
    cjk_split: str
    stop_words: str | None
    window: int
    min_freq: int | str
    cooccurrence: str
    cache: bool
    build_workers: int | None
    device: str
    auto: bool
    multi_label: bool
    label_sep: str
    budget: int | str | None
    baseline_class_weight: str | None
    baseline: bool

    def train_config(self, seed: int | None = None) -> TrainConfig:
        """The training settings (an :class:`~gfbgcn.core.errors.OptionError` if one is bad;
        ``batch_size="auto"``: full batch until the graph is known).

        ``seed``: the run's seed; ``None`` derives it from ``random_state``
        (:func:`~gfbgcn.text.estimator.run_seed`: a ``RandomState`` or ``Generator``
        is drawn from)."""
        if seed is None:
            seed = run_seed(self.random_state)
        params = {name: getattr(self, name) for name in TRAIN_PARAMETERS}
        check_parameter("batch_size", self.batch_size)
        if params["batch_size"] == AUTO:
            params["batch_size"] = 0
        return train_config(seed=seed, **params)

    def graph_settings(self, num_docs: int = 0) -> tuple[Tokenizer, GraphConfig]:
        """The tokenizer and graph settings of a corpus of ``num_docs`` documents (checked
        like :meth:`train_config`; ``stop_words`` and ``min_freq`` ``"auto"`` depend on the
        size: :func:`~gfbgcn.text.params.graph_defaults`)."""
        check_parameter("min_freq", self.min_freq)
        stop_words, min_freq = graph_defaults(self.stop_words, self.min_freq, num_docs)
        tokenizer, stop_words = tokenization(
            self.tokenizer, no_numbers=self.no_numbers, cjk_split=self.cjk_split,
            stop_words="none" if stop_words is None else stop_words)
        config = GraphConfig(window=self.window, min_freq=min_freq, stop_words=stop_words,
                             cooccurrence=self.cooccurrence)
        for name in ("cache", "build_workers"):
            check_parameter(name, getattr(self, name))
        return tokenizer, config

    def build_graph(self, corpus: Corpus) -> TextGraph:
        """The Text GCN graph of ``corpus`` with these graph settings (cached on disk unless
        ``cache=False``; see :func:`~gfbgcn.text.graph.text_graph.build_text_graph`)."""
        tokenizer, config = self.graph_settings(len(corpus))
        return build_text_graph(corpus, config, tokenizer, cache=bool(self.cache),
                                workers=self.build_workers)

    def check_settings(self) -> None:
        """Check every parameter (as ``fit`` does before any work); an
        :class:`~gfbgcn.core.errors.OptionError` names the first bad one."""
        check_random_state(self.random_state)
        self.train_config(seed=0)  # the other settings; nothing drawn from random_state
        self.graph_settings()
        resolve_device(self.device)
        for name in ("auto", "baseline", "baseline_class_weight", "verbose"):
            check_parameter(name, getattr(self, name))
        check_label_sep(self.label_sep)
        if self.baseline_class_weight is not None and not self.baseline:
            # (the command line refuses it first, in its own words: gfbgcn.cli.options)
            raise OptionError("{0} weighs the linear baseline's classes: drop it, or fit the "
                              "baseline ({1}=True)", "baseline_class_weight", "baseline")
        if self.auto and self.multi_label:
            raise OptionError("{0} is single-label only: drop {1}", "auto", "multi_label")
        if self.budget is not None:
            parse_budget(self.budget)

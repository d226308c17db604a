"""The settings of one fit, checked and resolved in one place for the command line and Python.

:func:`resolve_settings` turns the parameters of :class:`gfbgcn.TextGCNClassifier` (which
``gfbgcn train`` builds from its options) into one :class:`FitSettings`: the
:class:`~gfbgcn.text.train.config.TrainConfig` (the run's seed drawn once), the tokenizer, the
graph settings and the device, made once per fit and passed down.  A value out of range or
options that do not go together raise an :class:`~gfbgcn.core.errors.OptionError` in one line
that names the Python parameter (``epochs must be >= 1, got 0``), which the command line
shows as its option (``--epochs must be ...``: :func:`gfbgcn.cli.parameters.with_flags`);
the defaults and ranges themselves are those of one table, :data:`gfbgcn.text.params.PARAMETERS`,
which also resolves the defaults that depend on the corpus (its size, and whether it is one of
the paper's benchmarks: :func:`~gfbgcn.text.params.graph_defaults`,
:func:`~gfbgcn.text.params.default_tokenizer`).
"""

from __future__ import annotations

import numbers
import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch

from gfbgcn.core.device import resolve_device
from gfbgcn.core.errors import OptionError, StopWordsError, TokenizerError
from gfbgcn.core.validate import SEED_MAX
from gfbgcn.text.corpus.corpus import Corpus
from gfbgcn.text.corpus.weights import ClassWeight, check_class_weight
from gfbgcn.text.estimator.tensorboard import check_tensorboard
from gfbgcn.text.graph.text_graph import GraphConfig, TextGraph, build_text_graph
from gfbgcn.text.params import (
    AUTO,
    DEFAULTS,
    PAPER_STOP_WORDS,
    PARAMETERS,
    check_parameter,
    default_tokenizer,
    graph_defaults,
)
from gfbgcn.text.search.pacing import Budget, parse_budget
from gfbgcn.text.tokenize.clean import Tokenizer
from gfbgcn.text.tokenize.registry import make_tokenizer
from gfbgcn.text.tokenize.stop_words import parse_stop_words
from gfbgcn.text.train.config import TrainConfig
from gfbgcn.text.train.models import INDUCTIVE_MODELS, check_model


def tokenization(
    tokenizer: str | Tokenizer | None = DEFAULTS["tokenizer"], *,
    no_numbers: bool = DEFAULTS["no_numbers"], cjk_split: str = DEFAULTS["cjk_split"],
    stop_words: str | None = PAPER_STOP_WORDS,
) -> tuple[Tokenizer, str | None]:
    """``(tokenizer, stop-word setting)``: ``--tokenizer``, ``--no-numbers``, ``--cjk-split``
    and ``--stop-words``.

    ``tokenizer``: a built-in name (``textgcn``, ``unicode``, ``whitespace``; ``None``: the
    default of a corpus that is not a benchmark, :func:`~gfbgcn.text.params.default_tokenizer`)
    or a callable ``str -> list[str]``; ``stop_words``: ``english`` (shipped with gfbgcn: NLTK's
    list, no download), another NLTK language, a file with one word a line, ``"none"`` or
    ``None``.
    """
    name = default_tokenizer(benchmark=False) if tokenizer is None else tokenizer
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
                    "features", "multi_label", "optimizer", "row_budget", "class_weight")


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
        class_weight=check_class_weight(p["class_weight"], bool(p["multi_label"])),
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


@dataclass(frozen=True)
class FitSettings:
    """The classifier's parameters checked and resolved for one fit (:func:`resolve_settings`).

    ``train``: the training settings with the run's seed (``batch_size="auto"`` is 0 here and
    ``auto_batch`` true: the batching is chosen once the graph is built); ``tokenizer``: the
    tokenizer itself (``None`` resolved for the corpus); ``stop_words``: the stop-word setting
    parsed, or ``"auto"`` where it depends on the corpus's size; ``min_freq``: as given
    (``"auto"`` too: both resolved by :meth:`graph_config`);
    ``benchmark``: whether the corpus is one of the paper's (its graph defaults are the
    paper's); ``device``: the device resolved; ``budget``: ``auto``'s budget parsed;
    ``linear_class_weight``: the linear models' class weighting (``baseline_class_weight``
    where given, else the graph model's ``class_weight``, ``train.class_weight``).
    ``tensorboard``: the directory of the fit's TensorBoard runs (made, and the package found:
    :func:`~gfbgcn.text.estimator.tensorboard.check_tensorboard`), or ``None``.
    """

    train: TrainConfig
    tokenizer: Tokenizer
    window: int
    min_freq: int | str
    stop_words: str | None
    cooccurrence: str
    benchmark: bool
    device: torch.device
    auto_batch: bool
    budget: Budget | None
    cache: bool
    build_workers: int | None
    encoder: str | None = None
    encoder_finetune: bool = False
    #: the linear models' class weighting: baseline_class_weight where given, else class_weight
    linear_class_weight: ClassWeight = None
    #: the validation split stratified by class (a corpus of the user's, one label a document:
    #: gfbgcn.text.corpus.splits); a benchmark of the paper and multi-label keep the random one
    stratify_validation: bool = False
    tensorboard: Path | None = None

    def graph_config(self, num_docs: int) -> GraphConfig:
        """The graph settings of a corpus of ``num_docs`` documents: ``"auto"`` stop words and
        ``min_freq`` resolved by :func:`~gfbgcn.text.params.graph_defaults`."""
        stop_words, min_freq = graph_defaults(self.stop_words, self.min_freq, num_docs,
                                              self.benchmark)
        if self.stop_words == AUTO and stop_words is not None:  # the size chose a language
            stop_words = parse_stop_words_option(stop_words)
        return GraphConfig(window=self.window, min_freq=min_freq, stop_words=stop_words,
                           cooccurrence=self.cooccurrence)

    def build_graph(self, corpus: Corpus) -> TextGraph:
        """The Text GCN graph of ``corpus`` with these settings (cached on disk unless
        ``cache`` is false; see :func:`~gfbgcn.text.graph.text_graph.build_text_graph`)."""
        return build_text_graph(corpus, self.graph_config(len(corpus)), self.tokenizer,
                                cache=self.cache, workers=self.build_workers)


def parse_stop_words_option(spec: str) -> str | None:
    """The stop-word setting ``spec`` parsed (:func:`~gfbgcn.text.tokenize.stop_words.
    parse_stop_words`), its problem an :class:`OptionError` naming ``stop_words``."""
    try:
        return parse_stop_words(spec)
    except StopWordsError as err:
        raise OptionError(str(err)) from None


def resolve_settings(params: Mapping[str, Any], benchmark: bool = False) -> FitSettings:
    """Check every parameter of ``params`` (a classifier's ``get_params()``) and resolve them for
    one fit on a corpus (``benchmark``: one of the paper's benchmarks) -- what ``fit`` does once,
    before any work; the first bad value is an :class:`~gfbgcn.core.errors.OptionError` naming
    it.  A ``RandomState`` or ``Generator`` ``random_state`` is drawn from once (the run's seed).
    """
    p = params
    check_random_state(p["random_state"])
    train = _train_config(p)  # every training setting, before anything is drawn
    check_parameter("min_freq", p["min_freq"])
    for name in ("window", "cooccurrence", "cache", "build_workers", "auto", "baseline",
                 "baseline_class_weight", "verbose"):
        check_parameter(name, p[name], words=False)
    check_label_sep(p["label_sep"])
    # "auto" stop words are known here for a benchmark (the paper's), else only with the size
    stop_words = p["stop_words"] if p["stop_words"] != AUTO or not benchmark else \
        PAPER_STOP_WORDS
    tokenizer, stop = tokenization(  # the tokenizer, and a stop-word setting, checked
        default_tokenizer(benchmark) if p["tokenizer"] is None else p["tokenizer"],
        no_numbers=p["no_numbers"], cjk_split=p["cjk_split"],
        stop_words=None if stop_words == AUTO else "none" if stop_words is None else stop_words)
    device = resolve_device(p["device"])
    if p["baseline_class_weight"] is not None and not p["baseline"]:
        # (the command line refuses it first, in its own words: gfbgcn.cli.options)
        raise OptionError("{0} weighs the linear baseline's classes: drop it, or fit the "
                          "baseline ({1}=True)", "baseline_class_weight", "baseline")
    if p["auto"] and p["multi_label"]:
        raise OptionError("{0} is single-label only: drop {1}", "auto", "multi_label")
    encoder = check_encoder(p["encoder"])
    if train.features == "encoder" and encoder is None:
        raise OptionError("{0} encoder needs an encoder: add {1} MODEL", "features", "encoder")
    check_finetune(p, encoder, train)
    budget = None if p["budget"] is None else parse_budget(p["budget"])
    tensorboard = check_tensorboard(p["tensorboard"])  # installed, writable: before any work
    return FitSettings(
        train=replace(train, seed=run_seed(p["random_state"])),  # the one draw
        tokenizer=tokenizer, window=p["window"], min_freq=p["min_freq"],
        stop_words=AUTO if stop_words == AUTO else stop, cooccurrence=p["cooccurrence"],
        benchmark=benchmark, device=device, auto_batch=p["batch_size"] == AUTO, budget=budget,
        cache=bool(p["cache"]), build_workers=p["build_workers"], encoder=encoder,
        encoder_finetune=bool(p["encoder_finetune"]),
        linear_class_weight=p["baseline_class_weight"] or train.class_weight,
        stratify_validation=not benchmark and not p["multi_label"], tensorboard=tensorboard)


def check_encoder(encoder: object) -> str | None:
    """``encoder``: None, or a directory or model name (a non-empty string or path), as a
    string.  Whether it loads is checked when it is loaded, at the start of ``fit``."""
    if encoder is None:
        return None
    if isinstance(encoder, os.PathLike):
        encoder = os.fspath(encoder)
    if not isinstance(encoder, str) or not encoder.strip():
        raise OptionError("{0} must be a directory or a model name, got {value!r}", "encoder",
                          value=encoder)
    return str(encoder)


def check_finetune(params: Mapping[str, Any], encoder: str | None, train: TrainConfig) -> None:
    """``encoder_finetune`` needs an encoder, and trains one two-layer model on one label a
    document, full batch (the memory bank covers the whole graph each step)."""
    check_parameter("encoder_finetune", params["encoder_finetune"])
    if not params["encoder_finetune"]:
        return
    if encoder is None:
        raise OptionError("{0} needs an encoder: add {1} MODEL", "encoder_finetune", "encoder")
    for name, problem in (("auto", params["auto"]), ("multi_label", params["multi_label"])):
        if problem:
            raise OptionError("{0} trains one single-label model: drop {1}",
                              "encoder_finetune", name)
    if train.class_weight is not None:
        raise OptionError("{0} trains unweighted: drop {1}", "encoder_finetune",
                          "class_weight")
    if train.batch_size:  # ("auto" stands for full batch here)
        raise OptionError("{0} trains full batch: drop {1}", "encoder_finetune", "batch_size")
    if train.features != "onehot":
        raise OptionError("{0} gives the documents the fine-tuned embeddings itself: drop "
                          "{1}", "encoder_finetune", "features")
    if train.model not in INDUCTIVE_MODELS:
        raise OptionError("{0} trains a two-layer model ({models}), not {model}",
                          "encoder_finetune", models=", ".join(INDUCTIVE_MODELS),
                          model=train.model)


def _train_config(params: Mapping[str, Any]) -> TrainConfig:
    """The training settings of ``params`` with seed 0 (:func:`train_config`; ``batch_size``
    ``"auto"``: full batch until the graph is known)."""
    train = {name: params[name] for name in TRAIN_PARAMETERS}
    check_parameter("batch_size", train["batch_size"])
    if train["batch_size"] == AUTO:
        train["batch_size"] = 0
    return train_config(seed=0, **train)

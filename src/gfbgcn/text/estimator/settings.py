"""The settings of one training run, checked in one place for the command line and Python.

``gfbgcn train`` (:mod:`gfbgcn.cli.options`) and :class:`gfbgcn.TextGCNClassifier` both turn
their options into a tokenizer, a :class:`~gfbgcn.text.graph.text_graph.GraphConfig` and a
:class:`~gfbgcn.text.train.config.TrainConfig` through these functions.  A value out of range or
options that do not go together raise an :class:`~gfbgcn.core.errors.OptionError` in one line
that names the Python parameter (``epochs must be >= 1, got 0``), which the command line
shows as its option (``--epochs must be ...``: :func:`gfbgcn.cli.parameters.with_flags`);
the ranges themselves live with the configurations
(:func:`gfbgcn.text.train.checks.check_train_settings`, ``GraphConfig``).
"""

from __future__ import annotations

import numbers

import numpy as np

from gfbgcn.core.errors import OptionError, StopWordsError, TokenizerError
from gfbgcn.core.validate import SEED_MAX, check_option
from gfbgcn.text.tokenize.clean import Tokenizer
from gfbgcn.text.tokenize.registry import make_tokenizer
from gfbgcn.text.tokenize.stop_words import parse_stop_words
from gfbgcn.text.train.config import TrainConfig
from gfbgcn.text.train.models import INDUCTIVE_MODELS, check_model

#: The tokenizer of documents given from Python, as of a corpus file (any language).
DEFAULT_TOKENIZER = "unicode"


def tokenization(
    tokenizer: str | Tokenizer | None = None, *, no_numbers: bool = False,
    cjk_split: str = "chars", stop_words: str | None = "english",
) -> tuple[Tokenizer, str | None]:
    """``(tokenizer, stop-word setting)``: ``--tokenizer``, ``--no-numbers``, ``--cjk-split``
    and ``--stop-words``.

    ``tokenizer``: a built-in name (``textgcn``, ``unicode``, ``whitespace``; ``None``:
    :data:`DEFAULT_TOKENIZER`) or a callable ``str -> list[str]``; ``stop_words``: an NLTK
    language, a file with one word a line, ``"none"`` or ``None``.
    """
    name = DEFAULT_TOKENIZER if tokenizer is None else tokenizer
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
RANDOM_STATES = (f"None, a whole number in [0, {SEED_MAX}], a numpy.random.RandomState or a "
                 "numpy.random.Generator")


def check_random_state(random_state: RandomStateLike) -> None:
    """Refuse a ``random_state`` that :func:`run_seed` cannot use (an :class:`OptionError`),
    drawing nothing from it."""
    if random_state is None or isinstance(random_state, (np.random.RandomState,
                                                         np.random.Generator)):
        return
    if (not isinstance(random_state, numbers.Integral) or isinstance(random_state, bool)
            or not 0 <= int(random_state) <= SEED_MAX):
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


def layer_options(model: str, fast_genvec: bool = False,
                  fixed_lambda: float | None = None) -> dict:
    """The second layer's options: ``--fast-genvec`` and ``--fixed-lambda`` (gfb-* only)."""
    check_model(model)
    if fixed_lambda is not None:
        check_option("fixed_lambda", fixed_lambda)
    if not model.startswith("gfb-"):
        if fast_genvec or fixed_lambda is not None:
            raise OptionError("{0} and {1} apply to gfb-* models only", "fast_genvec",
                              "fixed_lambda")
        return {}
    options: dict = {"exact": not fast_genvec}
    if fixed_lambda is not None:
        options["lambda_init"] = float(fixed_lambda)
    return options


def train_config(
    *, model: str = "gfb-max", seed: int = 0, hidden: int = 200, dropout: float = 0.5,
    lr: float = 0.02, weight_decay: float = 0.0, epochs: int = 200, patience: int = 10,
    val_ratio: float = 0.1, fast_genvec: bool = False, fixed_lambda: float | None = None,
    batch_size: int = 0, fanout: int = 32, features: str = "onehot", multi_label: bool = False,
    optimizer: str = "adam", row_budget: int = 0,
) -> TrainConfig:
    """The :class:`TrainConfig` of ``gfbgcn train``'s options (the defaults are its defaults);
    every value is checked (:func:`~gfbgcn.text.train.checks.check_train_settings`)."""
    options = layer_options(model, fast_genvec, fixed_lambda)
    check_option("batch_size", batch_size, 0, whole=True)
    if batch_size and (model not in INDUCTIVE_MODELS or multi_label):
        raise OptionError("{0} supports single-label two-layer models only", "batch_size")
    return TrainConfig(
        model=model, seed=seed, hidden=hidden, dropout=dropout, lr=lr,
        weight_decay=weight_decay, epochs=epochs, patience=patience, val_ratio=val_ratio,
        train_lambda=fixed_lambda is None, layer_options=options, batch_size=batch_size,
        fanout=fanout, features=features, optimizer=optimizer, row_budget=row_budget,
    )


def check_savable(model: str) -> None:
    """Refuse to save a model that cannot classify new documents (``--save``: sgc, gin)."""
    if model not in INDUCTIVE_MODELS:
        raise OptionError("{0} supports the two-layer models only ({models}), not {model}",
                          "save", models=", ".join(INDUCTIVE_MODELS), model=model)


def check_build_workers(workers: int | None) -> None:
    """``--build-workers``: ``None`` (every available core) or a whole number >= 1."""
    if workers is not None:
        check_option("build_workers", workers, 1, whole=True)


def check_flag(option: str, value: object) -> None:
    """A yes/no setting (``auto``, ``cache``, ...; its Python name) must be a bool."""
    if not isinstance(value, (bool, numbers.Integral)) or value not in (0, 1):
        raise OptionError("{0} must be True or False, got {value!r}", option, value=value)

"""The settings shared by ``gfbgcn train`` and ``TextGCNClassifier``: one check, one message."""

from __future__ import annotations

import numpy as np
import pytest

from gfbgcn.core.errors import OptionError
from gfbgcn.core.validate import SEED_MAX
from gfbgcn.text.estimator.settings import (
    check_savable,
    layer_options,
    run_seed,
    tokenization,
    train_config,
)
from gfbgcn.text.tokenize.registry import UnicodeTokenizer


def test_train_config_defaults_are_the_papers():
    config = train_config()
    assert (config.model, config.hidden, config.lr, config.epochs, config.patience,
            config.val_ratio, config.dropout) == ("gfb-max", 200, 0.02, 200, 10, 0.1, 0.5)
    assert config.layer_options == {"exact": True} and config.train_lambda


def test_layer_options():
    assert layer_options("gfb-mean", True, None) == {"exact": False}
    assert layer_options("gfb-max", False, 0) == {"exact": True, "lambda_init": 0.0}
    assert layer_options("gcn", False, None) == {}
    assert not train_config(model="gfb-max", fixed_lambda=0.0).train_lambda


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"model": "gcn", "fixed_lambda": 0.5}, "apply to gfb-"),
    ({"fixed_lambda": float("nan")}, "^fixed_lambda must be a finite number, got nan$"),
    ({"fixed_lambda": 1001.0}, r"^fixed_lambda must be in \[-1000, 1000\], got 1001.0$"),
    ({"batch_size": 8, "model": "sgc"}, "^batch_size supports the two-layer models, not sgc$"),
    ({"batch_size": 8, "multi_label": True}, "^batch_size supports single-label training only"),
    ({"batch_size": -1}, "^batch_size must be >= 0, got -1$"),
    ({"fanout": 0}, "^fanout must be >= 1, got 0$"),
    ({"seed": -1}, r"^seed must be in \[0, 4294967295\], got -1$"),
    ({"dropout": 1.0}, r"^dropout must be in \[0, 1\), got 1.0$"),
    ({"epochs": True}, "^epochs must be a whole number >= 1, got True$"),
    ({"model": None}, "unknown model None"),
    ({"features": "glove"}, "^unknown features 'glove'"),
])
def test_train_config_refuses(kwargs, message):
    with pytest.raises(OptionError, match=message):
        train_config(**kwargs)


def test_train_config_refuses_an_unknown_parameter_as_a_programming_error():
    with pytest.raises(TypeError, match="unknown parameters window"):
        train_config(window=5)


def test_tokenization():
    tokenizer, stop_words = tokenization(None, stop_words="none")
    assert isinstance(tokenizer, UnicodeTokenizer) and stop_words is None
    tokenizer, _ = tokenization("unicode", no_numbers=True, cjk_split="bigrams",
                                stop_words=None)
    assert tokenizer.cache_key == "unicode-numbers+bigrams"
    custom = str.split
    assert tokenization(custom, stop_words=None)[0] is custom
    for kwargs, message in [({"tokenizer": "textgcn", "cjk_split": "bigrams"},
                             "^no_numbers and cjk_split apply to the unicode tokenizer only$"),
                            ({"tokenizer": custom, "no_numbers": True}, "apply to"),
                            ({"cjk_split": "words"},
                             "^cjk_split must be one of chars, bigrams, got 'words'$"),
                            ({"stop_words": 5}, "^stop_words must be a language"),
                            ({"stop_words": "klingon"}, "unknown stop-word language|stop")]:
        with pytest.raises(OptionError, match=message):
            tokenization(**kwargs)


def test_only_two_layer_models_are_savable():
    check_savable("gfb-topk")
    with pytest.raises(OptionError, match="not gin"):
        check_savable("gin")


def test_run_seed_of_whole_numbers_is_the_number():
    assert run_seed(0) == 0 and run_seed(SEED_MAX) == SEED_MAX
    assert run_seed(np.int64(7)) == 7 and type(run_seed(np.uint32(7))) is int


def test_run_seed_draws_from_a_random_state_or_generator():
    assert run_seed(np.random.RandomState(3)) == np.random.RandomState(3).randint(
        0, SEED_MAX + 1, dtype=np.int64)
    assert run_seed(np.random.default_rng(3)) == np.random.default_rng(3).integers(
        0, SEED_MAX, endpoint=True)
    rng = np.random.RandomState(3)
    assert run_seed(rng) != run_seed(rng)  # each fit draws anew, as scikit-learn's estimators


def test_run_seed_of_none_draws_from_numpys_global_generator():
    np.random.seed(5)
    first = run_seed(None)
    np.random.seed(5)
    assert run_seed(None) == first  # check_random_state(None): reproducible under np.random.seed


@pytest.mark.parametrize("bad", [-1, SEED_MAX + 1, 1.5, True, "0", np.float64(1.0)])
def test_run_seed_refuses_what_check_random_state_refuses(bad):
    with pytest.raises(OptionError, match=r"^random_state must be None, a whole number in "
                                          r"\[0, 4294967295\], a numpy.random.RandomState"):
        run_seed(bad)


def test_graph_settings_resolve_auto_by_the_corpus_size():
    from gfbgcn import TextGCNClassifier
    from gfbgcn.text.params import SMALL_CORPUS_DOCS

    settings = TextGCNClassifier().resolve_settings()
    small, large = settings.graph_config(100), settings.graph_config(SMALL_CORPUS_DOCS + 1)
    assert (small.stop_words, small.min_freq) == (None, 2)
    assert (large.stop_words, large.min_freq) == ("english", 5)
    fixed = TextGCNClassifier(stop_words="none", min_freq=5).resolve_settings().graph_config(100)
    assert (fixed.stop_words, fixed.min_freq) == (None, 5)
    with pytest.raises(OptionError, match="^min_freq must be"):
        TextGCNClassifier(min_freq="often").resolve_settings()


def test_a_benchmark_corpus_gets_the_papers_graph_and_tokenizer_whatever_its_size():
    from gfbgcn import TextGCNClassifier

    settings = TextGCNClassifier().resolve_settings(benchmark=True)
    config = settings.graph_config(100)
    assert (config.stop_words, config.min_freq) == ("english", 5)
    assert getattr(settings.tokenizer, "cache_key", None) == "textgcn"
    # what the user set is kept
    mine = TextGCNClassifier(stop_words="none", min_freq=2, tokenizer="unicode")
    config = mine.resolve_settings(benchmark=True).graph_config(100)
    assert (config.stop_words, config.min_freq) == (None, 2)
    assert getattr(mine.resolve_settings(benchmark=True).tokenizer, "cache_key", "") \
        .startswith("unicode")

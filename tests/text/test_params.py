"""The one table of the classifier's settings (``gfbgcn.text.params``): the estimator, the
training and graph configurations and the command line all take their defaults and ranges
from it, and refuse the same values."""

from __future__ import annotations

import inspect

import pytest

from gfbgcn import TextGCNClassifier
from gfbgcn.cli import build_parser, main
from gfbgcn.cli.options import check_applicable
from gfbgcn.cli.parameters import flag_of
from gfbgcn.core.errors import OptionError
from gfbgcn.text.graph.text_graph import GraphConfig
from gfbgcn.text.params import (
    DEFAULTS,
    PARAMETERS,
    SMALL_CORPUS_DOCS,
    Param,
    graph_defaults,
    paper_graph,
)
from gfbgcn.text.train.config import TrainConfig

RANGED = [name for name, p in PARAMETERS.items() if p.ranged()]


def _outside(p: Param) -> int | float:
    """A value just outside ``p``'s range, of its kind."""
    step = 1 if p.kind is int else 0.5
    if p.low is not None:
        return p.low if p.low_open else p.low - step
    return p.high if p.high_open else p.high + step


def _train_args(*extra: str):
    argv = ["train", "--dataset", "my.csv", *extra]
    args = build_parser(argv).parse_args(argv)
    check_applicable(args)
    return args


def test_the_table_is_the_estimators_signature():
    signature = inspect.signature(TextGCNClassifier).parameters
    assert list(signature) == list(PARAMETERS)
    assert {name: s.default for name, s in signature.items()} == DEFAULTS


def test_the_configurations_take_the_tables_defaults():
    config, graph = TrainConfig(), GraphConfig()
    assert config.seed == DEFAULTS["random_state"]
    for name in ("model", "hidden", "dropout", "lr", "weight_decay", "epochs", "patience",
                 "val_ratio", "batch_size", "fanout", "row_budget", "features", "optimizer"):
        assert getattr(config, name) == DEFAULTS[name], name
    for name in ("window", "cooccurrence"):
        assert getattr(graph, name) == DEFAULTS[name], name
    # a GraphConfig is resolved: "auto" of a large corpus and the benchmarks is the paper's
    assert (graph.stop_words, graph.min_freq) == paper_graph(DEFAULTS["stop_words"],
                                                             DEFAULTS["min_freq"])
    assert (graph.stop_words, graph.min_freq) == ("english", 5)


def test_auto_graph_settings_follow_the_corpus_size():
    assert DEFAULTS["stop_words"] == DEFAULTS["min_freq"] == "auto"
    for size in (1, SMALL_CORPUS_DOCS):
        assert graph_defaults("auto", "auto", size) == (None, 2)
    assert graph_defaults("auto", "auto", SMALL_CORPUS_DOCS + 1) == ("english", 5)
    # what the user set is kept, whatever the size
    assert graph_defaults("german", 3, 10) == ("german", 3)
    assert graph_defaults(None, "auto", 10**6) == (None, 5)
    assert graph_defaults("auto", 1, 10**6) == ("english", 1)
    assert paper_graph("auto", "auto") == ("english", 5)
    assert paper_graph(None, 2) == (None, 2)
    with pytest.raises(OptionError, match="min_freq must be"):
        GraphConfig(min_freq="auto")  # type: ignore[arg-type]  # resolved before a graph


def test_the_cli_passes_the_graph_options_as_given_and_the_library_resolves_them():
    """The benchmark rule is the library's: the command line's classifier holds what the user
    gave, and its settings for a benchmark are the paper's (as for ``fit_corpus``)."""
    from gfbgcn.cli.options import classifier_from_args, is_benchmark

    def built(*argv: str) -> tuple[TextGCNClassifier, GraphConfig, str]:
        args = build_parser(["train", *argv]).parse_args(["train", *argv])
        check_applicable(args)
        clf = classifier_from_args(args)
        settings = clf.resolve_settings(is_benchmark(args))
        return clf, settings.graph_config(100), settings.tokenizer.cache_key  # type: ignore

    clf, graph, tokenizer = built("--dataset", "r8")
    assert (clf.stop_words, clf.min_freq, clf.tokenizer) == ("auto", "auto", None)
    assert (graph.stop_words, graph.min_freq, tokenizer) == ("english", 5, "textgcn")
    _, graph, _ = built("--dataset", "r8", "--min-freq", "2", "--stop-words", "none")
    assert (graph.stop_words, graph.min_freq) == (None, 2)
    clf, graph, tokenizer = built("--dataset", "my.csv")
    assert (clf.stop_words, clf.min_freq) == ("auto", "auto")
    assert (graph.stop_words, graph.min_freq, tokenizer) == (None, 2, "unicode")


def test_every_parameter_has_its_train_option_with_the_tables_default():
    from gfbgcn.cli.options import classifier_from_args

    args = _train_args()
    params = classifier_from_args(args).get_params()
    for name, p in PARAMETERS.items():
        expected = p.default if p.cli_default is None else p.cli_default
        # an option that needs another stays unset (None) until that one is given
        assert getattr(args, name) == (None if p.needs else expected), name
        assert params[name] == (p.default if name == "baseline_class_weight" else expected), \
            name
    actions = build_parser(["train"])._subparsers._group_actions[0].choices["train"]._actions
    option = {flag: a for a in actions for flag in a.option_strings}
    for name, p in PARAMETERS.items():
        assert option[flag_of(name)].dest == name, name
        if p.ranged():  # --help says the range the type checks
            assert p.range_text() in option[flag_of(name)].help, name
    # the two on purpose: the command line shows progress and chooses the batching
    assert {n for n, p in PARAMETERS.items() if p.cli_default is not None} == {"batch_size",
                                                                              "verbose"}


def test_the_cli_builds_the_classifier_the_options_describe():
    from gfbgcn.cli.options import classifier_from_args

    clf = classifier_from_args(_train_args("--seed", "3", "--no-cache", "--min-freq", "2"))
    assert (clf.random_state, clf.cache, clf.min_freq) == (3, False, 2)
    assert clf.tokenizer is None and clf.batch_size == "auto"  # by the corpus; chosen later


@pytest.mark.parametrize("name", RANGED)
def test_a_value_out_of_range_is_refused_by_the_estimator(name):
    p = PARAMETERS[name]
    bad = _outside(p)
    params = {name: bad}
    if p.needs:  # fanout, row_budget: with a mini-batch
        params[p.needs] = 8
    with pytest.raises(OptionError, match=f"^{name} must be "):
        TextGCNClassifier(**params).resolve_settings()


@pytest.mark.parametrize("name", RANGED)
def test_a_value_out_of_range_is_refused_by_the_cli(name, capsys):
    p = PARAMETERS[name]
    flag = flag_of(name)
    extra = ["--batch-size", "8"] if p.needs else []
    assert main(["train", "--dataset", "my.csv", *extra, flag, str(_outside(p))]) == 2
    lines = [line for line in capsys.readouterr().err.splitlines() if "error:" in line]
    assert len(lines) == 1 and f"argument {flag}: must be" in lines[0]


@pytest.mark.parametrize("name", [n for n, p in PARAMETERS.items() if p.choices])
def test_a_choice_outside_the_table_is_refused(name, capsys):
    with pytest.raises(OptionError, match=f"^{name} must be one of|^unknown"):
        TextGCNClassifier(**{name: "nonsense"}).resolve_settings()
    assert main(["train", "--dataset", "my.csv", flag_of(name), "nonsense"]) == 2
    assert "invalid choice: 'nonsense'" in capsys.readouterr().err


def test_a_batch_size_of_a_whole_model_is_refused_once_naming_the_parameter(capsys):
    with pytest.raises(OptionError, match="^batch_size supports the two-layer models, not sgc$"):
        TextGCNClassifier(model="sgc", batch_size=8).resolve_settings()
    with pytest.raises(OptionError, match="^batch_size supports the two-layer models"):
        TrainConfig(model="gin", batch_size=8)
    assert main(["train", "--dataset", "my.csv", "--model", "sgc", "--batch-size", "8"]) == 2
    assert ("--batch-size supports the two-layer models, not sgc"
            in capsys.readouterr().err)

"""The text verbs' options: the corpus (`--dataset`, its columns), its graph and tokenization,
and the training configuration (flags shared by verbs of every task: :mod:`gfbgcn.cli.flags`)."""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gfbgcn.cli.flags import add_data_dir_argument
from gfbgcn.cli.parameters import flag_of
from gfbgcn.cli.runtime.argtypes import (
    encoding_name,
    float_in,
    input_directory,
    int_in,
    nonempty_path,
)
from gfbgcn.core.errors import OptionError
from gfbgcn.text.corpus.benchmarks import benchmark_key, load_corpus
from gfbgcn.text.corpus.corpus import Corpus
from gfbgcn.text.estimator.classifier import TextGCNClassifier
from gfbgcn.text.graph.text_graph import TextGraph
from gfbgcn.text.params import AUTO, GROUPS, PARAMETERS, Param
from gfbgcn.text.search.pacing import parse_budget


def parameters_of(*groups: str) -> tuple[str, ...]:
    """The parameters of the table's ``groups`` (:data:`gfbgcn.text.params.GROUPS`), in the
    table's order."""
    return tuple(name for name, p in PARAMETERS.items() if p.group in groups)


def add_parameter_groups(parser: argparse.ArgumentParser, groups: tuple[str, ...]) -> None:
    """The options of the table's ``groups``, each group an argument group of ``parser`` titled
    as in :data:`gfbgcn.text.params.GROUPS` (what ``--help`` shows)."""
    for group in groups:
        add_parameter_arguments(parser.add_argument_group(GROUPS[group]),
                                parameters_of(group))


def add_parameter_arguments(parser: argparse.ArgumentParser | argparse._ArgumentGroup,
                            names: tuple[str, ...]) -> dict[str, argparse.Action]:
    """The options of the classifier's parameters ``names``, generated from their entries of
    :data:`gfbgcn.text.params.PARAMETERS` (default, type and range check, help); each option's
    destination is the Python parameter (``--seed``: ``random_state``, ``--no-cache``:
    ``cache``), its name :func:`~gfbgcn.cli.parameters.flag_of` it.  An option that needs
    another (``--fanout``: ``--batch-size``) defaults to ``None`` here: :func:`check_applicable`
    refuses it alone, and :func:`classifier_from_args` gives it the table's default.  The help
    names options, not Python parameters.  ``parser`` may be an argument group.  Returns the
    options by parameter."""
    actions: dict[str, argparse.Action] = {}
    for name in names:
        p = PARAMETERS[name]
        flag = flag_of(name)
        default = p.default if p.cli_default is None else p.cli_default
        if p.kind is bool:  # --multi-label sets True; --no-cache and --quiet set False
            actions[name] = parser.add_argument(
                flag, dest=name, default=default, action="store_false" if default else
                "store_true", help=_flags_in(f"do not {p.help}" if default else p.help))
            continue
        shown = "none" if default is None else f"{default:g}" if isinstance(default, float) \
            else default
        bounds = p.range_text()
        words = f", or {' '.join(p.words)}" if p.words else ""
        help = f"{p.help} ({shown}{'; ' + bounds + words if bounds and not p.choices else ''})"
        if p.none is not None and default is None:
            help = f"{p.help} (default: {p.none}{'; ' + bounds if bounds else ''})"
        # type=None is argparse's own default (its registered identity type), which its stubs
        # leave out; a text parameter keeps it, so that its action says it takes no number
        actions[name] = parser.add_argument(
            flag, dest=name, default=None if p.needs else default,
            type=parameter_type(p),  # type: ignore[arg-type]
            choices=p.choices, metavar=p.metavar, help=_flags_in(help))
    return actions


def _flags_in(help: str) -> str:
    """``help`` with the parameters it names as options (``label_sep``: ``--label-sep``)."""
    return re.sub(r"\b[a-z]+(?:_[a-z]+)+\b",
                  lambda m: flag_of(m[0]) if m[0] in PARAMETERS else m[0], help)


def parameter_type(p: Param) -> Callable[[str], Any] | None:
    """The argparse type of a parameter: its range checked as the command line is read
    (NaN and infinities refused), and its words (``auto``) accepted; None (no type: the
    text as given) for the other parameters."""
    if p is PARAMETERS["budget"]:  # text with a grammar of its own
        return budget_text
    if p is PARAMETERS["encoder"]:  # a directory or a model name: an existing path a directory
        return input_directory
    if p is PARAMETERS["tensorboard"]:  # a directory made if missing: not empty
        return nonempty_path
    number: Callable[[str], float]
    if p.kind is int:
        number = int_in(p.low, p.high)
    elif p.kind is float:
        number = float_in(p.low, p.high, low_open=p.low_open, high_open=p.high_open)
    else:
        return None
    if not p.words:
        return number

    def parse(text: str) -> int | float | str:
        word = text.strip().lower()
        return word if word in p.words else number(text)

    parse.__name__ = number.__name__
    return parse


def budget_text(text: str) -> str:
    """argparse type of ``--budget``: checked as the command line is read (``N`` >= 1
    candidates, or ``Nm`` minutes > 0); the text itself is the classifier's ``budget``."""
    try:
        parse_budget(text)
    except OptionError:
        raise argparse.ArgumentTypeError(
            f"must be a number of candidates (e.g. 8) or minutes (e.g. 10m), got {text!r}"
        ) from None
    return text


def check_applicable(args: argparse.Namespace) -> None:
    """Refuse an option that would be ignored (``--budget`` without ``--auto``, ...; the
    table's ``needs``); called as the command line is read."""
    for name, p in PARAMETERS.items():
        if p.needs is None or not hasattr(args, name):
            continue
        # --batch-size auto chooses fanout and row budget itself: they need an explicit N
        if getattr(args, name) is not None and getattr(args, p.needs) in (None, False, 0, AUTO):
            option, needed = flag_of(name), flag_of(p.needs)
            raise OptionError(f"{option} applies only with {needed}: add {needed}, or drop "
                              f"{option}")


def add_corpus_arguments(parser: argparse.ArgumentParser) -> None:
    """``--dataset`` and the options that read a corpus and build its graph."""
    parser.add_argument("--dataset", type=nonempty_path, required=True, metavar="NAME|FILE",
                        help="20ng, r8, r52, ohsumed, or a CSV/TSV/JSONL corpus file")
    add_data_dir_argument(parser)
    parser.add_argument("--text-col", default="text", help="text column of a corpus file")
    parser.add_argument("--label-col", default="label", help="label column of a corpus file")
    parser.add_argument("--split-col", default=None, help="train/test column of a corpus "
                        "file; a named column must exist (default: 'split' where the file has "
                        "it, else a stratified 10%% test split drawn with --split-seed)")
    parser.add_argument("--split-seed", type=int_in(0), default=0,
                        help="seed of that split (0; >= 0)")
    parser.add_argument("--skip-bad-rows", action="store_true",
                        help="skip malformed rows of a corpus file (reported) instead of failing")
    parser.add_argument("--encoding", type=encoding_name, default="utf-8",
                        help="encoding of a corpus file (utf-8; a UTF-8 or UTF-16 byte-order "
                        "mark is recognised)")
    add_parameter_groups(parser, ("graph",))


def corpus_from_args(args: argparse.Namespace) -> Corpus:
    return load_corpus(
        args.dataset,
        args.data_dir,
        text_col=args.text_col,
        label_col=args.label_col,
        split_col=args.split_col,
        seed=args.split_seed,
        skip_bad_rows=args.skip_bad_rows,
        encoding=args.encoding,
    )


def run_provenance(args: argparse.Namespace, corpus: Corpus) -> dict[str, Any]:
    """What made a run, for its directory's ``config.json``: the command line, and the input,
    either a benchmark's name or the user's file (absolute path, sha256) with the columns read
    from it (``split``: the column named, or ``null``: ``split`` where the file fills it, else
    a drawn split)."""
    from gfbgcn.core.io import sha256_file

    command = ["gfbgcn", *getattr(args, "command_argv", [])]
    sources = [Path(s) for s in corpus.sources]
    if not (benchmark_key(args.dataset) is None and sources):
        return {"command": command, "input": {"dataset": args.dataset}}
    return {"command": command, "input": {
        "files": [{"path": str(s.absolute()), "sha256": sha256_file(s)} for s in sources],
        "format": Path(args.dataset).suffix.lstrip(".").lower(),
        "encoding": args.encoding,
        "columns": {"text": args.text_col, "label": args.label_col, "split": args.split_col},
    }}


def graph_from_args(args: argparse.Namespace) -> tuple[Corpus, TextGraph]:
    """``gfbgcn data``: the corpus and its graph with the command line's graph settings."""
    settings = classifier_from_args(args).resolve_settings(is_benchmark(args))  # before reading
    corpus = corpus_from_args(args)
    return corpus, settings.build_graph(corpus)


def is_benchmark(args: argparse.Namespace) -> bool:
    """``--dataset`` names one of the paper's benchmarks (whose graph and tokenizer defaults
    are the paper's), not a file."""
    return benchmark_key(args.dataset) is not None


def graph_settings_text(graph: TextGraph) -> str:
    """``stop words none, min_freq 2, window 20``: the settings ``graph`` was built with, as
    ``data stats`` and ``train`` print them."""
    c = graph.config
    return f"stop words {c.stop_words or 'none'}, min_freq {c.min_freq}, window {c.window}"


def classifier_from_args(args: argparse.Namespace) -> TextGCNClassifier:
    """The :class:`~gfbgcn.TextGCNClassifier` that the options describe (each option's
    destination is its Python parameter; those a verb has not, and those that need an option
    not given, take their defaults); the arguments are read, never written.  The baseline is
    fitted beside a model of a user's file, or tried by ``--auto``;
    ``--baseline-class-weight`` where it is not is refused.  (A benchmark's graph and tokenizer
    defaults are the paper's: the classifier resolves them from the corpus.)"""
    params = {name: getattr(args, name) for name in PARAMETERS if hasattr(args, name)}
    for name, value in params.items():
        if value is None and PARAMETERS[name].needs is not None:
            params[name] = PARAMETERS[name].default
    if "baseline" in params:
        params["baseline"] = args.baseline and (
            args.auto or benchmark_key(args.dataset) is None)
        if params.get("baseline_class_weight") is not None and not params["baseline"]:
            raise OptionError("--baseline-class-weight applies only where the linear baseline "
                              "is fitted (a corpus file, or --auto; not with --no-baseline): "
                              "drop it")
    return TextGCNClassifier(**params)


def add_saved_model_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags of the verbs that classify with a saved model (predict, evaluate, serve):
    how it runs (``--predict-batch``, ``--self-embedding``, ``--device``) and where its
    encoder is now (``--encoder``)."""
    parser.add_argument("--predict-batch", type=int_in(1), default=1024, metavar="N",
                        help="documents classified per batch (1024; >= 1; memory, not results)")
    parser.add_argument("--self-embedding", choices=("zero", "mean"), default=None,
                        help="a new document's own layer-1 embedding (default: as saved, zero)")
    parser.add_argument("--encoder", type=input_directory, default=None, metavar="MODEL",
                        help="where the sentence encoder of a model trained with one is now, "
                        "when it has moved (the same files: checked; default: where it was)")
    add_parameter_arguments(parser, ("device",))  # the classifier's, as for train

"""The shared flags (:mod:`gfbgcn.cli.flags`): one meaning each, opt-in per verb; renamed flags
keep their old spelling for one version with one warning; a bad option is one line, exit 2."""

from __future__ import annotations

import argparse

import pytest
import torch

from gfbgcn.cli import build_parser, flags, main
from gfbgcn.reproduce import harness


def _parse(*argv: str) -> argparse.Namespace:
    return build_parser(argv).parse_args(argv)


def test_reproduction_flags_defaults_and_checks() -> None:
    parser = argparse.ArgumentParser()
    flags.add_datasets_argument(parser, ["a", "b"])
    flags.add_models_argument(parser, ["m1", "m2", "m3"], ["m1"])
    flags.add_seeds_argument(parser, 3)
    flags.add_epochs_argument(parser, 7)
    flags.add_results_arguments(parser)
    flags.add_workers_argument(parser)
    flags.add_threads_argument(parser)
    args = parser.parse_args([])
    assert (args.datasets, args.models, args.seeds, args.epochs) == (["a", "b"], ["m1"], 3, 7)
    assert (args.out, args.workers, args.threads, args.report_only) == (
        harness.DEFAULT_OUT, 1, 0, False)
    for bad in (["--datasets", "c"], ["--workers", "0"], ["--threads", "-1"]):
        with pytest.raises(SystemExit):
            parser.parse_args(bad)
    free = argparse.ArgumentParser()
    flags.add_datasets_argument(free, ["a"], choices=False)
    assert free.parse_args(["--datasets", "anything"]).datasets == ["anything"]


def test_threads_default_is_torchs_choice_shared_among_workers(monkeypatch) -> None:
    monkeypatch.setattr(torch, "get_num_threads", lambda: 8)
    ns = argparse.Namespace
    assert flags.threads_of(ns(threads=0, workers=1)) is None  # torch's choice
    assert flags.threads_of(ns(threads=0)) is None  # a verb without --workers: one process
    assert flags.threads_of(ns(threads=0, workers=3)) == 2
    assert flags.threads_of(ns(threads=0, workers=16)) == 1
    assert flags.threads_of(ns(threads=5, workers=3)) == 5


# ---- renamed flags: the new name works, the old one too, with one warning --------------------

RENAMED = [
    # (verb, old spelling, new spelling, destination, value words, parsed value)
    (["predict", "m", "--text", "x"], "--batch-size", "--predict-batch", "predict_batch",
     ["8"], 8),
    (["reproduce", "graphs"], "--batch-size", "--graph-batch", "graph_batch", ["8"], 8),
    (["reproduce", "graphs"], "--hidden", "--hiddens", "hiddens", ["16", "32"], [16, 32]),
    (["reproduce", "entity"], "--lambda-init", "--lambda-inits", "lambda_inits", ["0.5"], [0.5]),
    (["train", "--dataset", "r8"], "--workers", "--build-workers", "build_workers", ["2"], 2),
    (["data", "stats", "--dataset", "r8"], "--workers", "--build-workers", "build_workers",
     ["2"], 2),
    (["data", "build", "--dataset", "r8"], "--workers", "--build-workers", "build_workers",
     ["2"], 2),
]


@pytest.mark.parametrize("verb, old, new, dest, words, value", RENAMED,
                         ids=[f"{' '.join(r[0][:2])} {r[1]}" for r in RENAMED])
def test_renamed_flag_works_and_its_old_spelling_warns_once(verb, old, new, dest, words, value,
                                                             capsys) -> None:
    assert getattr(_parse(*verb, new, *words), dest) == value
    assert capsys.readouterr().err == ""
    args = _parse(*verb, old, *words, old, *words)  # repeated in a script: one warning
    assert getattr(args, dest) == value
    assert capsys.readouterr().err == f"warning: {old} is deprecated, use {new}\n"


def test_an_old_spelling_never_overrides_the_new_flags_default() -> None:
    args = _parse("reproduce", "graphs")
    assert (args.graph_batch, args.hiddens) == (64, [16, 32, 64, 128])
    assert _parse("predict", "m", "--text", "x").predict_batch == 1024


def test_reproduce_workers_is_the_grid_and_train_has_no_grid_workers() -> None:
    assert _parse("reproduce", "text").workers == 1
    assert not hasattr(_parse("train", "--dataset", "r8"), "workers")
    assert _parse("train", "--dataset", "r8").build_workers is None  # every core


# ---- --help shows no flag a verb ignores ------------------------------------------------------

#: Flags a verb must not show (it would ignore them), and flags it must show.
HELP = {
    ("data", "stats"): ({"--workers", "--threads", "--device", "--seed", "--report-only"},
                        {"--build-workers"}),
    ("data", "build"): ({"--workers", "--threads", "--device", "--json"}, {"--build-workers"}),
    ("train",): ({"--workers", "--datasets", "--report-only"},
                 {"--build-workers", "--threads", "--device", "--batch-size"}),
    ("predict",): ({"--batch-size", "--workers", "--threads", "--seed"},
                   {"--predict-batch", "--device"}),
    ("reproduce", "text"): ({"--build-workers", "--batch-size"},
                            {"--workers", "--threads", "--device", "--report-only"}),
    ("reproduce", "inductive"): ({"--variants", "--build-workers"},
                                 {"--workers", "--threads", "--device", "--report-only"}),
    ("reproduce", "own-corpora"): ({"--models", "--build-workers"},
                                   {"--workers", "--threads", "--device", "--report-only"}),
    ("reproduce", "entity"): ({"--lambda-init", "--batch-size"},
                              {"--lambda-inits", "--workers", "--threads", "--device"}),
    ("reproduce", "graphs"): ({"--hidden", "--batch-size", "--seeds"},
                              {"--hiddens", "--graph-batch", "--workers", "--threads"}),
    ("figures", "pooling"): ({"--workers", "--threads", "--device", "--report-only"}, {"--out"}),
}


def _options(help_text: str) -> set[str]:
    words = help_text.replace("[", " ").replace("]", " ").replace(",", " ").split()
    return {w for w in words if w.startswith("--")}


@pytest.mark.parametrize("path", list(HELP), ids=" ".join)
def test_help_shows_only_the_flags_a_verb_uses(path, capsys) -> None:
    with pytest.raises(SystemExit):
        main([*path, "--help"])
    usage = capsys.readouterr().out.split("\n\n", 1)[0]  # the usage lists every option shown
    shown = _options(usage)
    absent, present = HELP[path]
    assert not shown & absent and present <= shown


# ---- option errors: one line, exit status 2 ----------------------------------------------------

ERRORS = [
    (["reproduce", "graphs", "--graph-batch", "0"], "error: argument --graph-batch: must be >= 1"),
    (["reproduce", "text", "--workers", "0"], "error: argument --workers: must be >= 1"),
    (["reproduce", "text", "--datasets", "nope"], "error: argument --datasets: invalid choice"),
    (["reproduce", "own-corpora", "--models", "auto"],
     "error: unrecognized arguments: --models auto"),
    (["train", "--dataset", "r8", "--build-workers", "0"],
     "error: argument --build-workers: must be >= 1"),
    (["train", "--dataset", "r8", "--model", "gcn", "--fast-genvec", "--data-dir", "/nowhere"],
     "error: --fast-genvec and --fixed-lambda apply to gfb-* models only"),
    (["predict", "m"], "error: give --text and/or --input"),
]


@pytest.mark.parametrize("argv, start", ERRORS, ids=[" ".join(a[:3]) for a, _ in ERRORS])
def test_option_errors_are_one_line_and_exit_2(argv, start, capsys) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(start), err

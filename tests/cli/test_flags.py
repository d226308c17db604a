"""The shared flags (:mod:`gfbgcn.cli.flags`): one meaning each, opt-in per verb, no alias of an
old spelling; the table of flags the same in ``gfbgcn --help``, the flags module and the docs;
a bad option is one line, exit 2."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest
import torch

from gfbgcn.cli import build_parser, flags, main


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
        None, 1, 0, False)
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


# ---- one concept, one flag: no alias, no second meaning -------------------------------------

#: Spellings that once meant something else in these verbs (0.1.0, never released, accepted
#: them as deprecated aliases): each is now an unknown option there, never a silent alias.
GONE = [
    (["predict", "m", "--text", "x"], "--batch-size", "8"),  # --predict-batch
    (["reproduce", "graphs"], "--batch-size", "8"),  # --graph-batch
    (["reproduce", "graphs"], "--hidden", "16"),  # --hiddens
    (["reproduce", "entity"], "--lambda-init", "0.5"),  # --lambda-inits
    (["reproduce", "entity"], "--epochs", "5"),  # --fixed-epochs: entity has no early stopping
    (["reproduce", "fidelity"], "--seeds", "2"),  # --max-seeds: a cap, not a count
    (["train"], "--workers", "2"),  # --build-workers
    (["data", "stats"], "--workers", "2"),
    (["data", "build"], "--workers", "2"),
    # never a prefix of another flag: --seed is not --seeds where a verb has only the latter
    (["reproduce", "text"], "--seed", "3"),
    (["reproduce", "entity"], "--select", "3"),
    (["train"], "--build", "2"),
]


def _harmless(verb: list[str], tmp_path) -> list[str]:
    """Words that make ``verb`` fail before any work should its option be taken after all: a
    corpus file that does not exist, a report of no records under a scratch ``--out``."""
    if verb[0] in ("train", "data"):
        return ["--dataset", str(tmp_path / "missing.csv")]
    if verb[0] == "reproduce":
        return ["--report-only", "--out", str(tmp_path / "out")]
    return []


@pytest.mark.parametrize("verb, old, value", GONE, ids=[f"{' '.join(g[0][:2])} {g[1]}"
                                                         for g in GONE])
def test_an_old_spelling_is_an_unknown_option(verb, old, value, tmp_path, capsys) -> None:
    assert main([*verb, *_harmless(verb, tmp_path), old, value]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"error: unrecognized arguments: {old}"), err


def test_the_flags_module_has_no_alias_machinery() -> None:
    assert not [name for name in vars(flags) if "deprecat" in name.lower()]


def test_renamed_flags_defaults() -> None:
    args = _parse("reproduce", "graphs")
    assert (args.graph_batch, args.hiddens) == (64, [16, 32, 64, 128])
    assert _parse("predict", "m", "--text", "x").predict_batch == 1024
    entity = _parse("reproduce", "entity")
    assert (entity.fixed_epochs, entity.seeds, entity.select_seeds) == (50, 10, 3)
    assert not hasattr(entity, "epochs")
    fidelity = _parse("reproduce", "fidelity", "--max-seeds", "2")
    assert fidelity.max_seeds == 2 and not hasattr(fidelity, "seeds")


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
    ("evaluate",): ({"--batch-size", "--workers", "--threads", "--seed", "--output"},
                    {"--predict-batch", "--device", "--out", "--input", "--label-col"}),
    ("serve",): ({"--batch-size", "--workers", "--threads", "--seed", "--out", "--output"},
                 {"--predict-batch", "--device", "--host", "--port", "--max-texts"}),
    ("reproduce", "text"): ({"--build-workers", "--batch-size"},
                            {"--workers", "--threads", "--device", "--report-only"}),
    ("reproduce", "inductive"): ({"--variants", "--build-workers"},
                                 {"--workers", "--threads", "--device", "--report-only"}),
    ("reproduce", "own-corpora"): ({"--models", "--build-workers"},
                                   {"--workers", "--threads", "--device", "--report-only"}),
    ("reproduce", "entity"): ({"--lambda-init", "--batch-size", "--epochs"},
                              {"--lambda-inits", "--fixed-epochs", "--workers", "--threads",
                               "--device"}),
    ("reproduce", "graphs"): ({"--hidden", "--batch-size", "--seeds"},
                              {"--hiddens", "--graph-batch", "--workers", "--threads"}),
    ("reproduce", "fidelity"): ({"--seeds", "--epochs", "--datasets"},
                                {"--max-seeds", "--rows", "--workers", "--threads"}),
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


# ---- the flag table: one table, printed, in the flags module and in the CLI reference page ---

CLI_PAGE = Path(__file__).resolve().parents[2] / "docs" / "reference" / "cli.md"


def _table_flags(text: str) -> set[str]:
    return set(re.findall(r"--[a-z][a-z-]*", text))


def test_the_flag_table_is_the_same_in_help_module_and_docs() -> None:
    from gfbgcn.cli import GRAMMAR

    page = CLI_PAGE.read_text(encoding="utf-8")
    section = page[page.index("One flag grammar"):page.index("<!-- cli-reference -->")]
    table = "\n".join(line for line in section.splitlines() if line.startswith("| `--"))
    module_table = flags.__doc__.split("=====", 1)[1].rsplit("=====", 1)[0]
    grammar = GRAMMAR.split("Graph classification counts", 1)[0]
    assert _table_flags(table) == _table_flags(module_table) == _table_flags(grammar)

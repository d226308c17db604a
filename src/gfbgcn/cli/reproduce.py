"""``gfbgcn reproduce <verb>``: the paper's reproductions, one table (:data:`VERBS`).

Every reproduction is the same command: its own options beside the shared ones (``--data-dir``,
``--out``, ``--report-only``, ``--workers``, ``--threads``, ``--device``:
:mod:`gfbgcn.cli.flags`), then the shared loop :func:`gfbgcn.reproduce.harness.reproduce` over
its data sets (fidelity: its rows) with the run and the report of its part of the reproduction
wing (:mod:`gfbgcn.reproduce`), then ``wrote <report>``.  A row of the table gives a verb's
help, the builder of its own options and its *plan*: the function that hands the parsed
options to the wing's grid and report.  The results live under ``<out>`` as the verb's task
(``<out>/<verb>.md``, ``<out>/raw/<verb>/``).

A verb's libraries are imported by its own functions, when it is the verb being run:
``gfbgcn --help`` reads this table, and one reproduction does not load every task's code.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import torch

    from gfbgcn.reproduce.harness import Layout

#: Models of ``reproduce text`` when ``--models`` is not given (the paper's table).
TEXT_MODELS = ("gcn", "gfb-max", "gfb-mean", "gfb-diag", "gfb-topk",
               "fbp", "cbp", "bp", "sqrt", "sgc", "gin")


@dataclass(frozen=True)
class Context:
    """What every plan gets: the parsed options, where the task's results live, the checked
    device, the torch threads per process and the command line as reports show it."""

    args: argparse.Namespace
    layout: Layout
    device: torch.device
    threads: int | None
    command: str

    def grid_options(self, render: Callable[[], None], *, every_record: bool = False
                     ) -> dict[str, Any]:
        """The keyword arguments of a wing's grid: ``--workers``, threads, device, and the
        report re-rendered as records arrive (at most once a minute, or ``every_record``)."""
        from gfbgcn.reproduce.harness import Throttle

        on_saved = (lambda *_: render()) if every_record else Throttle(render)
        return {"workers": self.args.workers, "threads": self.threads, "device": self.device,
                "on_saved": on_saved}


@dataclass(frozen=True)
class Plan:
    """A verb's part of the shared loop: ``run(item)`` runs one data set's (or row's) missing
    runs (False: it could not be run at all), ``render()`` writes the report from the records;
    ``status()`` is the exit status once the loop is done; ``log_extra`` goes into the
    invocation log."""

    run: Callable[[str], bool | None]
    render: Callable[[], None]
    status: Callable[[], int] = field(default=lambda: 0)
    log_extra: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Verb:
    """One ``gfbgcn reproduce`` verb: its help, its own options, its plan; ``items``: the
    option listing what the loop runs; ``gpu_workers``: its ``--workers`` may share one GPU."""

    help: str
    arguments: Callable[[argparse.ArgumentParser], None]
    plan: Callable[[Context], Plan]
    items: str = "datasets"
    gpu_workers: bool = False


# ---- the verbs' own options --------------------------------------------------------------------


def _text_arguments(parser: argparse.ArgumentParser) -> None:
    from gfbgcn.cli import flags
    from gfbgcn.text.corpus.benchmarks import BENCHMARKS
    from gfbgcn.text.train.models import MODELS

    flags.add_datasets_argument(parser, BENCHMARKS)
    flags.add_models_argument(parser, MODELS, TEXT_MODELS)
    flags.add_seeds_argument(parser, 10)
    flags.add_epochs_argument(parser, 200)
    parser.add_argument("--variants", nargs="+", default=[], metavar="VARIANT",
                        help="also run these variants of every model they apply to: "
                             "fast (GFB MaxVec/TopKVec), lambda0, lam0init (GFB models), "
                             "eps-1, eps-1-fixed (Text GIN), lr0.2 (Text SGC), l2 (l2 on the "
                             "second-order term: GFB, FBP, BP), fast-l2 (both: GFB "
                             "MaxVec/TopKVec), patience50, stopacc (all models)")


def _inductive_arguments(parser: argparse.ArgumentParser) -> None:
    from gfbgcn.cli import flags
    from gfbgcn.text.corpus.benchmarks import BENCHMARKS
    from gfbgcn.text.train.models import SECOND_LAYERS

    flags.add_datasets_argument(parser, BENCHMARKS)
    flags.add_models_argument(parser, SECOND_LAYERS, ("gfb-max", "gcn"))
    flags.add_seeds_argument(parser, 2)
    flags.add_epochs_argument(parser, 200)


def _own_corpora_arguments(parser: argparse.ArgumentParser) -> None:
    from gfbgcn.cli import flags
    from gfbgcn.reproduce.own_corpora.experiment import OWN_DATASETS

    flags.add_datasets_argument(parser, OWN_DATASETS)
    flags.add_seeds_argument(parser, 5)
    flags.add_epochs_argument(parser, 200)


def _entity_arguments(parser: argparse.ArgumentParser) -> None:
    from gfbgcn.cli import flags
    from gfbgcn.cli.runtime.argtypes import float_in, int_in
    from gfbgcn.core.validate import range_text
    from gfbgcn.entity.data import DATASETS
    from gfbgcn.entity.model import MODELS
    from gfbgcn.nn.genvec import SUMMARIZERS
    from gfbgcn.reproduce.entity.experiment import LAMBDA_INIT_GRID
    from gfbgcn.text.params import LAMBDA_MAX

    flags.add_datasets_argument(parser, DATASETS, choices=False)
    flags.add_models_argument(parser, MODELS)
    flags.add_seeds_argument(parser, 10)
    parser.add_argument("--fixed-epochs", type=int_in(1), default=50, metavar="N",
                        help="training epochs of every run, all of them: the protocol has no "
                        "early stopping (50; >= 1)")
    parser.add_argument("--summarize", default="mean", choices=SUMMARIZERS,
                        help="GenVec summarizer of GFB-R-GCN (paper: mean)")
    parser.add_argument("--select-seeds", type=int_in(0), default=3, metavar="N",
                        help="runs (seeds 0..N-1) per candidate config on the 80/20 validation "
                        "split; 0 skips selection and uses the R-GCN paper's settings (3; >= 0)")
    parser.add_argument(
        "--lambda-inits", type=float_in(-LAMBDA_MAX, LAMBDA_MAX), nargs="+",
        default=list(LAMBDA_INIT_GRID), metavar="L",
        help="initial lambda values GFB-R-GCN's selection compares (a grid: "
        f"{' '.join(f'{v:g}' for v in LAMBDA_INIT_GRID)}; each "
        f"{range_text(-LAMBDA_MAX, LAMBDA_MAX)})")
    parser.add_argument("--offline", action="store_true",
                        help="never try to download a missing data set")


def _graphs_arguments(parser: argparse.ArgumentParser) -> None:
    from gfbgcn.cli import flags
    from gfbgcn.cli.runtime.argtypes import float_in, int_in
    from gfbgcn.core.validate import SEED_MAX, range_text
    from gfbgcn.graph_classification.data import DATASETS
    from gfbgcn.graph_classification.model import MODELS
    from gfbgcn.reproduce.graphs.experiment import HIDDEN_GRID, LAYERS_GRID
    from gfbgcn.text.params import LR_MAX

    def words(values: tuple[int, ...]) -> str:
        return " ".join(map(str, values))

    count = flags.positive_int
    flags.add_datasets_argument(parser, DATASETS, choices=False)
    flags.add_models_argument(parser, MODELS)
    flags.add_epochs_argument(parser, 100)
    parser.add_argument("--hiddens", nargs="+", type=count, default=list(HIDDEN_GRID),
                        metavar="H", help=f"hidden sizes of the grid ({words(HIDDEN_GRID)}; "
                        "each >= 1)")
    parser.add_argument("--layers", nargs="+", type=count, default=list(LAYERS_GRID),
                        metavar="L", help=f"layer counts of the grid ({words(LAYERS_GRID)}; "
                        "each >= 1)")
    # 3 at least: each test fold takes another fold for validation, and trains on the rest
    parser.add_argument("--folds", type=int_in(3), default=10, metavar="K",
                        help="K of stratified K-fold cross-validation (10; >= 3: one fold "
                        "tests, another validates, the rest train)")
    parser.add_argument("--fold-limit", type=count, default=None, metavar="N",
                        help="run only the first N of the K folds (1 <= N <= K)")
    parser.add_argument("--seed", type=int_in(0, SEED_MAX), default=0, metavar="S",
                        help="seed of the folds; fold k trains from seed S + k (0; S + K - 1 "
                        f"{range_text(0, SEED_MAX)})")
    parser.add_argument("--patience", type=count, default=20, metavar="N",
                        help="early-stopping patience (20; >= 1)")
    parser.add_argument("--graph-batch", type=count, default=64, metavar="N",
                        help="graphs per training mini-batch (64; >= 1)")
    parser.add_argument("--lr", type=float_in(0, LR_MAX, low_open=True), default=0.01,
                        help=f"Adam learning rate (0.01; {range_text(0, LR_MAX, True)})")
    parser.add_argument("--batch-runs", type=count, default=1, metavar="N",
                        help="train up to N runs of one fold and model at once, as one batched "
                        "model: a fold's configurations draw the same mini-batches, and each "
                        "run keeps its own initial weights, dropout, early stopping and chosen "
                        "weights, so its record is the one it gets alone, to rounding (not bit "
                        "for bit). The paper's grid has 20 runs per fold and model; on a GPU, "
                        "where one small run leaves the card idle, 20 trains them in one pass "
                        "(1: one run at a time, as the committed records were made; >= 1)")


def _fidelity_arguments(parser: argparse.ArgumentParser) -> None:
    from gfbgcn.cli import flags
    from gfbgcn.reproduce.fidelity.experiment import ROWS

    ids = [r.id for r in ROWS]
    parser.add_argument("--rows", nargs="+", default=ids, choices=ids, metavar="ROW",
                        help=f"rows of the fidelity table ({' '.join(ids)})")
    parser.add_argument("--configs", nargs="+", default=None, metavar="NAME",
                        help="only these configurations of the rows (default: all)")
    parser.add_argument("--max-seeds", type=flags.positive_int, default=None, metavar="N",
                        help="a cap: at most N of each configuration's seeds (default: all of "
                        "its own; >= 1)")


# ---- the verbs' plans: the parsed options handed to the reproduction wing -----------------------


def _text_plan(c: Context) -> Plan:
    from gfbgcn.core.extras import require
    from gfbgcn.reproduce.text.grid import grid, run_text_grid
    from gfbgcn.reproduce.text.report import render_text_report

    # the report draws a figure after runs: without matplotlib, fail before the first run
    require("matplotlib", "figures", "gfbgcn reproduce text")
    args = c.args

    def render() -> None:
        render_text_report(c.layout, c.command)

    def run(dataset: str) -> None:
        specs = grid([dataset], args.models, range(args.seeds), args.variants)
        run_text_grid(specs, c.layout.store(), args.data_dir, args.epochs,
                      **c.grid_options(render))

    return Plan(run, render)


def _inductive_plan(c: Context) -> Plan:
    from gfbgcn.reproduce.text.grid import inductive_grid, run_inductive_grid
    from gfbgcn.reproduce.text.inductive_report import render_inductive_report

    args = c.args

    def render() -> None:
        render_inductive_report(c.layout)

    def run(dataset: str) -> None:
        specs = inductive_grid([dataset], args.models, range(args.seeds))
        run_inductive_grid(specs, c.layout.store(), args.data_dir, args.epochs,
                           **c.grid_options(render))

    return Plan(run, render)


def _own_corpora_plan(c: Context) -> Plan:
    from gfbgcn.reproduce.own_corpora.experiment import run_own_grid
    from gfbgcn.reproduce.own_corpora.report import render_own_report

    args = c.args

    def render() -> None:
        render_own_report(c.layout)

    def run(dataset: str) -> None:
        # a search takes minutes: the report follows every record
        run_own_grid([dataset], range(args.seeds), c.layout.store(), args.data_dir,
                     args.epochs, **c.grid_options(render, every_record=True))

    return Plan(run, render)


def _entity_plan(c: Context) -> Plan:
    from gfbgcn.core.errors import DatasetUnavailableError
    from gfbgcn.reproduce.entity.reproduction import EntityReproduction, EntitySettings

    args = c.args
    settings = EntitySettings(
        models=tuple(args.models), seeds=args.seeds, epochs=args.fixed_epochs,
        summarize=args.summarize, select_seeds=args.select_seeds,
        lambda_inits=tuple(args.lambda_inits))
    runnable: list[bool] = []  # per data set of the last report: could it be loaded?

    def render() -> None:
        outcomes = entity.write_report(list(args.datasets), c.command)
        runnable[:] = [o.unavailable is None for o in outcomes]

    entity = EntityReproduction(c.layout, settings, args.data_dir, offline=args.offline,
                                **c.grid_options(render))

    def run(name: str) -> bool:
        try:
            entity.run(name)
        except DatasetUnavailableError as err:
            print(f"{name}: not run: {err}", file=sys.stderr)
            return False
        return True

    # exit status 1 when no data set could be run (or reported)
    return Plan(run, render, status=lambda: 0 if any(runnable) else 1)


def _graphs_plan(c: Context) -> Plan:
    from gfbgcn.core.errors import OptionError
    from gfbgcn.core.validate import SEED_MAX
    from gfbgcn.graph_classification.data import load_graph_dataset
    from gfbgcn.graph_classification.train import GraphTrainConfig
    from gfbgcn.reproduce.graphs.experiment import grid, run_graph_grid
    from gfbgcn.reproduce.graphs.report import write_report

    args = c.args
    if args.fold_limit is not None and args.fold_limit > args.folds:
        raise OptionError(f"--fold-limit must be <= --folds ({args.folds}), got "
                          f"{args.fold_limit}")
    if args.seed + args.folds - 1 > SEED_MAX:
        raise OptionError(f"--seed: fold k trains from seed S + k, and S + K - 1 must be <= "
                          f"{SEED_MAX}, got {args.seed + args.folds - 1}")
    cfg = GraphTrainConfig(epochs=args.epochs, patience=args.patience, lr=args.lr,
                      batch_size=args.graph_batch)

    def render() -> None:
        write_report(c.layout)

    def run(name: str) -> None:
        ds = load_graph_dataset(name, args.data_dir)
        runs = grid(ds, args.models, args.folds, args.fold_limit, args.hiddens, args.layers,
                    args.seed)
        run_graph_grid(ds, runs, c.layout.store(), cfg, args.folds, args.seed,
                       batch_runs=args.batch_runs, **c.grid_options(render))

    return Plan(run, render, log_extra={"train_config": cfg.__dict__.copy()})


def _fidelity_plan(c: Context) -> Plan:
    from gfbgcn.reproduce.fidelity.experiment import row_by_id
    from gfbgcn.reproduce.fidelity.report import write_report
    from gfbgcn.reproduce.fidelity.run import run_row

    args = c.args

    def render() -> None:
        write_report(c.layout)

    def run(row_id: str) -> None:
        run_row(row_by_id(row_id), c.layout.store(), configs=args.configs,
                seeds=args.max_seeds, data_dir=args.data_dir, **c.grid_options(render))

    return Plan(run, render)


#: The ``gfbgcn reproduce`` verbs: name -> help, own options, plan (the wing it calls).
VERBS: dict[str, Verb] = {
    "text": Verb("reproduce the paper's text-classification tables", _text_arguments,
                 _text_plan, gpu_workers=True),  # its spawned --workers share one GPU
    "inductive": Verb("inductive (new documents) against transductive accuracy",
                      _inductive_arguments, _inductive_plan),
    "own-corpora": Verb("paper defaults, --auto, linear baseline, combined and pretrained "
                        "features on own corpora and the benchmarks", _own_corpora_arguments,
                        _own_corpora_plan),
    "entity": Verb("reproduce the entity-classification table", _entity_arguments,
                   _entity_plan),
    "graphs": Verb("reproduce the graph-classification table", _graphs_arguments,
                   _graphs_plan),
    "fidelity": Verb("experiments behind the cells that differ from the paper",
                     _fidelity_arguments, _fidelity_plan, items="rows"),
}


def reproduce_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of the verb ``parser`` parses (its command path is the parser's default
    ``_command``, set by :func:`gfbgcn.cli.build_parser`): the data root, the verb's own, then
    the results, ``--workers``, ``--threads`` and ``--device``."""
    from gfbgcn.cli import flags
    from gfbgcn.cli.runtime.device import add_device_argument

    flags.add_data_dir_argument(parser)
    VERBS[parser.get_default("_command")[-1]].arguments(parser)
    flags.add_results_arguments(parser)
    flags.add_workers_argument(parser)
    flags.add_threads_argument(parser)
    add_device_argument(parser)


def reproduce(args: argparse.Namespace) -> int:
    """Run the verb ``args._command`` names: its plan through the shared loop; print where its
    report is.  An absent GPU fails first, before any work."""
    from gfbgcn.cli.flags import threads_of
    from gfbgcn.cli.runtime.device import device_from_args
    from gfbgcn.cli.runtime.invocation import invocation
    from gfbgcn.reproduce import harness
    from gfbgcn.reproduce.locations import results_directory

    name = args._command[-1]
    verb = VERBS[name]
    device = device_from_args(args, gpu_workers=verb.gpu_workers)
    layout = harness.Layout(results_directory(args.out), name)
    threads = threads_of(args)
    command = invocation(args, device)
    plan = verb.plan(Context(args, layout, device, threads, command.command))
    harness.reproduce(layout, getattr(args, verb.items), plan.run, plan.render, command,
                      report_only=args.report_only, threads=threads, log_extra=plan.log_extra)
    print(f"wrote {layout.report}")
    return plan.status()

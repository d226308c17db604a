"""``gfbgcn reproduce fidelity``: the hypotheses of :mod:`gfbgcn.reproduce.fidelity.experiment` behind
the cells that differ from the paper (resumable records under ``<out>/raw/fidelity/``), and
``<out>/fidelity.md``, through :func:`gfbgcn.reproduce.harness.reproduce` (one "data set" a row)."""

from __future__ import annotations

import argparse

from gfbgcn.cli.flags import (
    add_data_dir_argument,
    add_results_arguments,
    add_threads_argument,
    add_workers_argument,
    threads_of,
)
from gfbgcn.cli.runtime.argtypes import positive_int
from gfbgcn.cli.runtime.device import add_device_argument, device_from_args
from gfbgcn.cli.runtime.invocation import invocation
from gfbgcn.reproduce import harness

TASK = "fidelity"


def reproduce_fidelity_arguments(parser: argparse.ArgumentParser) -> None:
    from gfbgcn.reproduce.fidelity.experiment import ROWS

    ids = [r.id for r in ROWS]
    parser.add_argument("--rows", nargs="+", default=ids, choices=ids, metavar="ROW",
                        help=f"rows of the fidelity table ({' '.join(ids)})")
    parser.add_argument("--configs", nargs="+", default=None, metavar="NAME",
                        help="only these configurations of the rows (default: all)")
    parser.add_argument("--seeds", type=positive_int, default=None, metavar="N",
                        help="at most N seeds per configuration (default: each one's own)")
    add_data_dir_argument(parser)
    add_results_arguments(parser)
    add_workers_argument(parser)
    add_threads_argument(parser)
    add_device_argument(parser)


def reproduce_fidelity(args: argparse.Namespace) -> int:
    """Run the chosen rows' missing records; keep ``<out>/fidelity.md`` up to date."""
    from gfbgcn.reproduce.fidelity.experiment import row_by_id
    from gfbgcn.reproduce.fidelity.report import write_report
    from gfbgcn.reproduce.fidelity.run import run_row

    device = device_from_args(args)  # an absent GPU fails here, before any work
    layout = harness.Layout(args.out, TASK)
    threads = threads_of(args)

    def render() -> None:
        write_report(layout)

    def run(row_id: str) -> None:
        run_row(row_by_id(row_id), layout.store(), configs=args.configs, seeds=args.seeds,
                data_dir=args.data_dir, device=device, workers=args.workers,
                threads=threads, on_saved=harness.Throttle(render))

    harness.reproduce(layout, args.rows, run, render, invocation(args, device),
                      report_only=args.report_only, threads=threads)
    print(f"wrote {layout.report}")
    return 0

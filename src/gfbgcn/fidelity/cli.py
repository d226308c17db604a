"""``gfbgcn reproduce fidelity``: run the hypotheses of :mod:`gfbgcn.fidelity.experiment`
(resumable records under ``<out>/raw/fidelity/``) and render ``<out>/fidelity.md``."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from gfbgcn.core import harness
from gfbgcn.core.device import add_device_argument, device_from_args
from gfbgcn.core.runinfo import thread_count, torch_threads
from gfbgcn.fidelity.experiment import ROWS, row_by_id
from gfbgcn.fidelity.report import write_report
from gfbgcn.fidelity.run import run_row

TASK = "fidelity"


def reproduce_fidelity_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``gfbgcn reproduce fidelity``."""
    ids = [r.id for r in ROWS]
    parser.add_argument("--rows", nargs="+", default=ids, choices=ids, metavar="ROW",
                        help=f"rows of the fidelity table ({' '.join(ids)})")
    parser.add_argument("--configs", nargs="+", default=None, metavar="NAME",
                        help="only these configurations of the rows (default: all)")
    parser.add_argument("--seeds", type=harness.positive_int, default=None, metavar="N",
                        help="at most N seeds per configuration (default: each one's own)")
    parser.add_argument("--data-dir", default=None, metavar="DIR",
                        help="data root (default: $GFBGCN_DATA, then the user cache dir)")
    parser.add_argument("--out", type=Path, default=harness.DEFAULT_OUT, metavar="DIR",
                        help=f"results directory (default: {harness.DEFAULT_OUT})")
    parser.add_argument("--workers", type=harness.positive_int, default=1,
                        help="parallel worker processes (1)")
    parser.add_argument("--threads", type=thread_count, default=1,
                        help="torch CPU threads per process (1; 0: torch's choice)")
    parser.add_argument("--report-only", action="store_true",
                        help="only re-render the report from the records already in --out")
    add_device_argument(parser)


def reproduce_fidelity(args: argparse.Namespace) -> int:
    """Run the chosen rows' missing records, keep ``<out>/fidelity.md`` up to date."""
    device = device_from_args(args)
    layout = harness.Layout(args.out, TASK)

    def report(*_) -> None:
        write_report(layout)

    if args.report_only:
        report()
        print(f"wrote {layout.report}")
        return 0
    log = harness.Invocations(layout, args)
    throttle = harness.Throttle(report)
    with torch_threads(args.threads):
        for row_id in args.rows:
            start = time.perf_counter()
            run_row(row_by_id(row_id), layout.store(), configs=args.configs, seeds=args.seeds,
                    data_dir=args.data_dir, device=device, workers=args.workers,
                    threads=args.threads, on_saved=throttle)
            log.add_seconds(row_id, time.perf_counter() - start)
            report()
    log.finish()
    report()
    print(f"wrote {layout.report}")
    return 0

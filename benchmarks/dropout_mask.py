"""Dropout on the hidden features of a text graph, forward and backward -> docs/benchmarks.md.

Three ways to drop half of a ``[N, 200]`` float32 tensor on the CPU, timed in one process
(medians of ``--repeat`` calls after one warm-up): torch's ``F.dropout`` (a ``bernoulli_``
mask), a mask from ``torch.rand_like(x) >= p`` (what ``gfbgcn.nn.utils.dropout`` used until
2026-11-26) and :func:`gfbgcn.nn.utils.keep_mask` (random bytes against ``256 p``, seven bytes
from each 64-bit draw).  ``N`` defaults to the nodes of R8's graph with ``min_freq`` 1 and no
stop words (31,259), the largest graph of an R8 ``--auto`` search.

    python benchmarks/dropout_mask.py --threads 2
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable

import torch
import torch.nn.functional as F

from _report import command_line, machine_line, update_section
from gfbgcn.nn.utils import keep_mask


def _rand_mask(x: torch.Tensor, p: float) -> torch.Tensor:
    return x * torch.rand_like(x).ge_(p).mul_(1.0 / (1.0 - p))


def _byte_mask(x: torch.Tensor, p: float) -> torch.Tensor:
    return x * keep_mask(x, p).to(x.dtype).mul_(1.0 / (1.0 - p))


WAYS: dict[str, Callable[[torch.Tensor, float], torch.Tensor]] = {
    "F.dropout (bernoulli_)": lambda x, p: F.dropout(x, p, True),
    "torch.rand_like(x) >= p": _rand_mask,
    "keep_mask (random bytes)": _byte_mask,
}


def time_way(way: Callable[[torch.Tensor, float], torch.Tensor], x: torch.Tensor, p: float,
             repeat: int) -> float:
    """Median milliseconds of one forward and backward through ``way``."""
    times = []
    for i in range(repeat + 1):
        start = time.perf_counter()
        way(x, p).sum().backward()
        if i:  # the first call warms up
            times.append((time.perf_counter() - start) * 1000)
        x.grad = None
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rows", type=int, default=31_259)
    p.add_argument("--cols", type=int, default=200)
    p.add_argument("--p", type=float, default=0.5)
    p.add_argument("--repeat", type=int, default=20)
    p.add_argument("--threads", type=int, default=None)
    p.add_argument("--no-write", action="store_true", help="print only")
    args = p.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    x = torch.randn(args.rows, args.cols, requires_grad=True)
    rows = [(name, time_way(way, x, args.p, args.repeat)) for name, way in WAYS.items()]
    body = "\n".join([
        "## Dropout mask on the CPU (forward + backward)", "",
        f"Command: `{command_line()}`  ",
        f"Machine: {machine_line(torch.get_num_threads())}", "",
        f"A `[{args.rows}, {args.cols}]` float32 tensor, p = {args.p}; median of {args.repeat} "
        "calls after one warm-up, in one process.", "",
        "| mask | ms | relative to F.dropout |", "|---|---|---|",
        *[f"| {name} | {ms:.1f} | {ms / rows[0][1]:.2f} |" for name, ms in rows],
    ])
    print(body)
    if not args.no_write:
        update_section("dropout-mask", body)
    return 0


if __name__ == "__main__":
    sys.exit(main())

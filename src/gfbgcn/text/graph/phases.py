"""Wall seconds per phase of a graph build, to show which parts run in parallel and which in
the main process alone (the serial part bounds the speed-up from more cores)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

#: the phases of :func:`gfbgcn.text.graph.text_graph.build_text_graph` in order, with whether
#: the pool's workers share the work (``True``) or the main process does it alone
BUILD_PHASES: dict[str, bool] = {
    "tokenize": True,
    "vocabulary merge": False,
    "count": True,  # the workers count; the main process sums their co-occurrence matrices
    "count assembly": False,
    "tf-idf": False,
    "ppmi": False,
    "edges": False,
    "cache write": False,
}


@contextmanager
def timed(phases: dict[str, float] | None, name: str) -> Iterator[None]:
    """Add the wall seconds of the ``with`` block to ``phases[name]`` (nothing when ``None``)."""
    start = time.perf_counter()
    try:
        yield
    finally:
        if phases is not None:
            phases[name] = phases.get(name, 0.0) + time.perf_counter() - start


def serial_seconds(phases: dict[str, float]) -> float:
    """Seconds of the phases the main process runs alone."""
    return sum(s for name, s in phases.items() if not BUILD_PHASES.get(name, False))

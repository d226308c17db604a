"""Progress bars on a terminal only.

Every long loop of gfbgcn (training epochs, embedding documents, a reproduction's runs) shows a
tqdm bar on standard error.  A bar redraws its line many times a second: on a terminal that is
one line that moves, but in a file (``2> log``, a CI log, a notebook's captured stream) every
redraw stays, and a log fills with thousands of partial lines.  :func:`progress_bar` shows the
bar only where standard error is a terminal (tqdm's ``disable=None``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tqdm.auto import tqdm

__all__ = ["progress_bar"]


def progress_bar(iterable: Iterable[Any] | None = None, *, show: bool = True,
                 **kwargs: Any) -> tqdm:
    """A tqdm bar over ``iterable`` (or ``total=``), on standard error when it is a terminal;
    none (a pass-through) when ``show`` is false or standard error is a file or a pipe."""
    return tqdm(iterable, disable=None if show else True, **kwargs)

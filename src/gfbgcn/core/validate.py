"""The checks of a setting's value: a range, a choice, an encoding, each refusing a bad value with
an :class:`~gfbgcn.core.errors.OptionError` naming the Python parameter (the settings of
:class:`gfbgcn.TextGCNClassifier`, ``TrainConfig``, ``GraphConfig``; the command line shows its
option in its place).

``check_option("epochs", 0, 1, whole=True)`` accepts whole numbers >= 1, ``check_option("lr",
x, 0, 1, low_open=True, high_open=True)`` numbers strictly between 0 and 1; NaN and infinities
are refused.  :func:`range_text` gives a range in words.  The command line's argparse types
(:mod:`gfbgcn.cli.runtime.argtypes`) parse a word and apply these same checks, so an option's
range is checked when the command line is read, before any work.
"""

from __future__ import annotations

import codecs
import math
import numbers
from typing import Any

from gfbgcn.core.errors import OptionError

#: The largest seed (``--seed``): every consumer of a seed accepts it (scikit-learn's and
#: NumPy's legacy seeding stop at 2**32 - 1; torch at 2**64 - 1).
SEED_MAX = 2**32 - 1
#: The widest PMI window (``--window``): far beyond any document's length in practice, and
#: small enough that the word-pair keys of a large vocabulary still pack into 62 bits.
WINDOW_MAX = 10_000


def _number(value: float) -> str:
    """``4294967295``, not ``4.29497e+09``: whole bounds in full, others as ``:g``."""
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def range_text(low: float | None, high: float | None, low_open: bool = False,
               high_open: bool = False) -> str:
    """``">= 1"``, ``"in (0, 1)"``, ``"in [0, 1)"``, ..."""
    if high is None:
        return f"{'>' if low_open else '>='} {_number(low)}" if low is not None else "any number"
    if low is None:
        return f"{'<' if high_open else '<='} {_number(high)}"
    return (f"in {'(' if low_open else '['}{_number(low)}, {_number(high)}"
            f"{')' if high_open else ']'}")


def _inside(value: float, low: float | None, high: float | None, low_open: bool,
            high_open: bool) -> bool:
    if low is not None and (value < low or (low_open and value == low)):
        return False
    return not (high is not None and (value > high or (high_open and value == high)))


def check_option(option: str, value: Any, low: float | None = None, high: float | None = None,
                 *, low_open: bool = False, high_open: bool = False, whole: bool = False) -> None:
    """Refuse ``value`` of setting ``option`` unless it is a finite number (a whole number when
    ``whole``) in the range.  ``option`` is the Python parameter (``"epochs"``): the
    :class:`OptionError` names it, ``epochs must be >= 1, got 0``, and the command line shows
    its option instead (``--epochs must be ...``, :func:`gfbgcn.cli.parameters.with_flags`)."""
    kind = numbers.Integral if whole else numbers.Real
    bounds = range_text(low, high, low_open, high_open)
    noun = "a whole number" if whole else "a finite number"
    if not isinstance(value, kind) or isinstance(value, bool):
        within = "" if low is None and high is None else f" {bounds}"
        raise OptionError("{0} must be {noun}{within}, got {value!r}", option, noun=noun,
                          within=within, value=value)
    if not math.isfinite(value):
        raise OptionError("{0} must be {noun}, got {value}", option, noun=noun, value=value)
    if not _inside(float(value), low, high, low_open, high_open):
        raise OptionError("{0} must be {bounds}, got {value}", option, bounds=bounds,
                          value=value)


def check_choice(option: str, value: Any, choices: tuple[str, ...]) -> None:
    """Refuse ``value`` of setting ``option`` (its Python name, as :func:`check_option`)
    unless it is one of ``choices`` (an :class:`OptionError` listing them)."""
    if not isinstance(value, str) or value not in choices:
        raise OptionError("{0} must be one of {choices}, got {value!r}", option,
                          choices=", ".join(choices), value=value)


def check_encoding(option: str, name: str) -> str:
    """The canonical name of the codec ``name`` (``utf-8``, ``latin-1``, ``utf-16``, ...), or an
    :class:`OptionError` naming setting ``option`` (its Python name, as :func:`check_option`)."""
    try:
        return codecs.lookup(name).name
    except LookupError:
        raise OptionError("{0}: unknown encoding {value!r} (e.g. utf-8, utf-16, latin-1, cp1252)",
                          option, value=name) from None

"""argparse types: each parses one word of the command line and checks it with the library's own
check (:mod:`gfbgcn.core.validate`, :func:`gfbgcn.core.paths.outputs.nonempty_path`,
:func:`gfbgcn.core.runinfo.check_threads`), so a value out of range is refused when the command
line is read, before any work, with argparse's one line: ``argument --epochs: must be >= 1, got
0`` (argparse names the option; the library's message names the Python parameter, which is
dropped here).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from gfbgcn.core.errors import InputError, OptionError
from gfbgcn.core.paths.inputs import check_directory, check_stream, is_regular_file
from gfbgcn.core.paths.outputs import nonempty_path as check_nonempty_path
from gfbgcn.core.runinfo import check_threads
from gfbgcn.core.validate import check_encoding, check_option

#: What the checks call the value (a placeholder: argparse names the option itself).
_VALUE = "value"
Number = TypeVar("Number", int, float)


def _argument_error(err: OptionError, text: str) -> argparse.ArgumentTypeError:
    """The library's refusal as argparse's: without the parameter's name (argparse puts the
    option before the message), with the value as it was typed."""
    values = {**err.values, **({"value": text} if "value" in err.values else {})}
    message = err.template.format(*("" for _ in err.parameters), **values)
    return argparse.ArgumentTypeError(message.lstrip(" :"))


def _number(text: str, convert: Callable[[str], Number], noun: str) -> Number:
    """``convert(text)``, or argparse's error: ``not a whole number: 'ten'``."""
    try:
        return convert(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not {noun}: {text!r}") from None


def int_in(low: float | None = None, high: float | None = None) -> Callable[[str], int]:
    """A whole number in ``[low, high]`` (either bound may be ``None``)."""
    def parse(text: str) -> int:
        value = _number(text, int, "a whole number")
        try:
            check_option(_VALUE, value, low, high, whole=True)
        except OptionError as err:
            raise _argument_error(err, text) from None
        return value

    parse.__name__ = "whole number"  # argparse names the type in its messages
    return parse


def float_in(low: float | None = None, high: float | None = None, *, low_open: bool = False,
             high_open: bool = False) -> Callable[[str], float]:
    """A finite number in the given range (open ends excluded)."""
    def parse(text: str) -> float:
        value = _number(text, float, "a number")
        try:
            check_option(_VALUE, value, low, high, low_open=low_open, high_open=high_open)
        except OptionError as err:
            raise _argument_error(err, text) from None
        return value

    parse.__name__ = "number"
    return parse


#: Counts that must be at least 1 (one range checker for every verb).
positive_int = int_in(1)


def thread_count(text: str) -> int:
    """``--threads``: a count >= 0, where 0 keeps torch's choice."""
    threads = _number(text, int, "a whole number")
    try:
        return check_threads(threads)
    except OptionError as err:
        raise _argument_error(err, text) from None


def encoding_name(text: str) -> str:
    """``--encoding``: a codec Python knows (utf-8, latin-1, utf-16, ...)."""
    try:
        return check_encoding(_VALUE, text)
    except OptionError as err:
        raise _argument_error(err, text) from None


def nonempty_path(text: str) -> str:
    """Every path option: the empty string (an unset shell variable) is refused."""
    try:
        return check_nonempty_path(text, _VALUE)
    except OptionError as err:
        raise _argument_error(err, text) from None


def nonempty_directory(text: str) -> Path:
    """A directory option (``--out DIR``): :func:`nonempty_path`, as a :class:`Path`."""
    return Path(nonempty_path(text))


def duration(text: str) -> float:
    """A duration, ``30s``, ``15m``, ``12h``, ``7d``, ``2w``, as seconds
    (:func:`gfbgcn.core.paths.parse_duration`)."""
    from gfbgcn.core.paths import parse_duration

    try:
        return parse_duration(text, _VALUE)
    except OptionError as err:
        raise _argument_error(err, text) from None


duration.__name__ = "duration"


# Inputs: what each kind of path may be is :mod:`gfbgcn.core.paths.inputs`'s rule; these types apply
# it to a path that exists as the command line is read (a missing one is the loader's to name),
# and the loaders apply it again to what they open (the Python API has no parser).


def _input(check: Callable[[str], object]) -> Callable[[str], str]:
    def parse(text: str) -> str:
        nonempty_path(text)
        try:
            check(text)
        except InputError as err:
            raise argparse.ArgumentTypeError(str(err)) from None
        return text

    return parse


def _stream(text: str) -> None:
    if text != "-":  # standard input
        check_stream(text, "documents")


#: A file read more than once (``evaluate --input``): a regular file.
input_file = _input(lambda text: is_regular_file(
    text, "; it is read more than once (copy a stream to a file first)"))
input_file.__name__ = "input file"
#: A stream read once (``predict --input``): a file, a pipe, a terminal, or ``-``.
input_stream = _input(_stream)
input_stream.__name__ = "input stream"
#: A directory read (a model, an encoder, the data root).
input_directory = _input(check_directory)
input_directory.__name__ = "input directory"

#: The types of path options (a test checks that every path option of every verb has one).
PATH_TYPES: tuple[Callable[[str], object], ...] = (nonempty_path, nonempty_directory, input_file,
                                                   input_stream, input_directory)

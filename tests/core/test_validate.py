"""Checks of a setting's value, each refusing it with an OptionError naming the parameter."""

from __future__ import annotations

import math

import pytest

from gfbgcn.core.errors import OptionError
from gfbgcn.core.validate import check_choice, check_encoding, check_option, range_text


def test_range_text():
    assert range_text(1, None) == ">= 1" and range_text(0, 1, True, True) == "in (0, 1)"
    assert range_text(None, 2**32 - 1) == "<= 4294967295" and range_text(None, None) == \
        "any number"


def test_check_option_names_the_python_parameter():
    with pytest.raises(OptionError, match="^epochs must be >= 1, got 0$") as info:
        check_option("epochs", 0, 1, whole=True)
    assert info.value.parameters == ("epochs",)
    assert info.value.render(lambda name: f"--{name}") == "--epochs must be >= 1, got 0"
    check_option("lr", 0.5, 0, 1, low_open=True)
    for value in (0.0, math.nan, math.inf, "0.5", True):
        with pytest.raises(OptionError, match="^lr must be"):
            check_option("lr", value, 0, 1, low_open=True)
    with pytest.raises(OptionError, match="^epochs must be a whole number"):
        check_option("epochs", 1.5, 1, whole=True)


def test_check_choice_and_check_encoding():
    check_choice("model", "gcn", ("gcn", "gfb"))
    with pytest.raises(OptionError, match="^model must be one of gcn, gfb, got 'x'$"):
        check_choice("model", "x", ("gcn", "gfb"))
    assert check_encoding("encoding", "LATIN1") == "iso8859-1"
    with pytest.raises(OptionError, match="^encoding: unknown encoding 'klingon'") as info:
        check_encoding("encoding", "klingon")
    assert info.value.parameters == ("encoding",)

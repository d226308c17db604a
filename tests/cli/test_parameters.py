"""The command line's names for the Python API's parameters (``gfbgcn.cli.parameters``)."""

from __future__ import annotations

import pickle

import pytest

from gfbgcn.cli import main
from gfbgcn.cli.parameters import flag_of, with_flags
from gfbgcn.core.errors import OptionError, UserError


def test_flag_of_each_parameter():
    assert flag_of("min_freq") == "--min-freq" and flag_of("epochs") == "--epochs"
    assert flag_of("random_state") == "--seed" and flag_of("seed") == "--seed"
    assert flag_of("cache") == "--no-cache" and flag_of("--out") == "--out"


def test_with_flags_renders_an_option_error_with_the_options():
    err = OptionError("{0} applies only with {1}: add {1}, or drop {0}", "row_budget",
                      "batch_size")
    assert str(err) == "row_budget applies only with batch_size: add batch_size, or drop row_budget"
    shown = with_flags(err)
    assert str(shown) == ("--row-budget applies only with --batch-size: add --batch-size, or "
                          "drop --row-budget")
    assert isinstance(shown, UserError) and shown.__cause__ is err
    plain, other = OptionError("no parameter here {0}"), ValueError("x")
    assert with_flags(plain) is plain and with_flags(other) is other


def test_an_option_error_pickles_with_its_parameters():
    err = pickle.loads(pickle.dumps(OptionError("{0} must be >= 1, got {value!r}", "epochs",
                                                value=0)))
    assert str(err) == "epochs must be >= 1, got 0"
    assert str(with_flags(err)) == "--epochs must be >= 1, got 0"


@pytest.mark.parametrize(("argv", "line"), [
    (["--fixed-lambda", "nan"], "error: argument --fixed-lambda: must be a finite number"),
    (["--row-budget", "4"], "error: --row-budget applies only with --batch-size: add "
                            "--batch-size, or drop --row-budget"),
])
def test_the_command_line_reports_its_options(argv, line, tmp_path, capsys):
    data = tmp_path / "c.csv"
    data.write_text("text,label\n" + "".join(f"goal {i},a\nbank {i},b\n" for i in range(6)))
    assert main(["train", "--dataset", str(data), "--quiet", "--no-cache", *argv]) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1].startswith(line)


def test_with_flags_renders_any_user_error_keeping_its_type():
    from gfbgcn.core.errors import CorpusFormatError

    err = CorpusFormatError("{0} and {1} both name column {col!r}", "text_col", "label_col",
                            col="x")
    assert str(err) == "text_col and label_col both name column 'x'"
    shown = with_flags(err)
    assert type(shown) is CorpusFormatError and shown.__cause__ is err
    assert str(shown) == "--text-col and --label-col both name column 'x'"
    plain = UserError("a {brace} stays as it is")  # no parameters: the text is not a template
    assert str(plain) == "a {brace} stays as it is" and with_flags(plain) is plain

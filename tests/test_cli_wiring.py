"""Every documented verb of the ``gfbgcn`` command is wired and has help."""

from __future__ import annotations

import pytest

from gfbgcn import cli


@pytest.mark.parametrize("path", [p for p, _, _ in cli._COMMANDS], ids=" ".join)
def test_every_verb_has_help(path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli.main([*path, "--help"])
    assert exit_info.value.code == 0
    assert "usage: gfbgcn " + " ".join(path) in capsys.readouterr().out


def test_unknown_verb_is_an_error(capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["frobnicate"])
    assert exit_info.value.code == 2

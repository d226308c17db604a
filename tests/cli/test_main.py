"""The ``gfbgcn`` command: every documented verb is wired and has help, no verb is undocumented,
the flag grammar is printed by ``gfbgcn --help``, and ``python -m gfbgcn`` works."""

from __future__ import annotations

import subprocess
import sys

import pytest

from gfbgcn import cli

#: The verbs the README and the grammar document, written out here (not read from the table).
DOCUMENTED_VERBS = [
    ("cache", "info"),
    ("cache", "clear"),
    ("data", "stats"),
    ("data", "build"),
    ("train",),
    ("predict",),
    ("evaluate",),
    ("serve",),
    ("reproduce", "text"),
    ("reproduce", "inductive"),
    ("reproduce", "own-corpora"),
    ("reproduce", "entity"),
    ("reproduce", "graphs"),
    ("reproduce", "fidelity"),
    ("figures", "pooling"),
]


@pytest.mark.parametrize("path", DOCUMENTED_VERBS, ids=" ".join)
def test_every_verb_has_help(path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli.main([*path, "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: gfbgcn " + " ".join(path))
    assert "--" in out.split("\n", 1)[1]  # the verb's own options are listed


def test_the_table_has_no_undocumented_verb():
    assert sorted(path for path, _, _, _ in cli.COMMANDS) == sorted(DOCUMENTED_VERBS)


def test_each_verb_is_a_pair_of_functions():
    import importlib

    for path, module, function, help_text in cli.COMMANDS:
        mod = importlib.import_module(module)
        assert callable(getattr(mod, function)), path
        assert callable(getattr(mod, f"{function}_arguments")), path
        assert help_text


def test_top_level_help_lists_verbs_and_the_grammar(capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: gfbgcn")
    assert cli.GRAMMAR in out  # verbatim: the formatter keeps its layout
    for word in ("data", "train", "predict", "reproduce", "figures"):
        assert word in out


def test_python_dash_m_gfbgcn_help():
    result = subprocess.run([sys.executable, "-m", "gfbgcn", "--help"], capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage: gfbgcn")
    assert "One flag grammar" in result.stdout


def test_version_and_missing_verb(capsys):
    from gfbgcn import __version__

    with pytest.raises(SystemExit) as exit_info:
        cli.main(["--version"])
    assert exit_info.value.code == 0 and capsys.readouterr().out.strip() == f"gfbgcn {__version__}"
    assert cli.main([]) == 2
    assert capsys.readouterr().err.startswith("error: the following arguments are required")


def test_unknown_verb_is_an_error(capsys):
    assert cli.main(["frobnicate"]) == 2
    assert cli.main(["reproduce", "nodes"]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 2 and all(line.startswith("error: argument ") for line in lines)
    assert "invalid choice: 'nodes'" in lines[1] and "gfbgcn reproduce --help" in lines[1]


def test_only_the_selected_verb_module_is_imported(monkeypatch):
    """Start-up stays fast: building the parser imports the selected verb's module only."""
    imported: list[str] = []
    inner = cli.importlib.import_module

    def spy(name, *args, **kwargs):
        imported.append(name)
        return inner(name, *args, **kwargs)

    monkeypatch.setattr(cli.importlib, "import_module", spy)
    cli.build_parser(["figures", "pooling", "--out", "x"])
    assert imported == ["gfbgcn.cli.figures"]
    imported.clear()
    cli.build_parser(["reproduce", "graphs"])
    assert imported == ["gfbgcn.cli.reproduce"]
    imported.clear()
    cli.build_parser(["--help"])
    assert imported == []


def test_user_errors_are_raised_and_reported_by_main_alone():
    """One way to report a user error: raise a UserError subclass; only ``cli/runtime/failures.py``
    prints ``error: ...`` and no module exits by itself (which would skip ``main``)."""
    import ast
    from pathlib import Path

    src = Path(cli.__file__).resolve().parents[1]
    offenders = []
    for path in src.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Raise) and "SystemExit" in ast.unparse(node.exc or node):
                offenders.append(f"{path.name}:{node.lineno}")
            if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                    and node.value.startswith("error: ")
                    and path.relative_to(src) != Path("cli/runtime/failures.py")):
                offenders.append(f"{path.name}:{node.lineno}")
    assert offenders == []

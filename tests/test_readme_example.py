"""The README's "Your own data" example runs as shown.

The shell block is executed command by command: ``cat > FILE <<'EOF' ... EOF`` writes the file,
``gfbgcn ...`` lines run through :func:`gfbgcn.cli.main` in this process (same argument parsing
as the installed command, without paying the interpreter start-up for each), and any other
command fails the test, so the example cannot drift from what is checked.  The Python block is
then executed in the same directory.
"""

from __future__ import annotations

import ast
import re
import shlex
from pathlib import Path

import torch

from gfbgcn.cli import main

README = Path(__file__).resolve().parent.parent / "README.md"


def example_blocks() -> tuple[list[str], list[str]]:
    text = README.read_text(encoding="utf-8")
    match = re.search(r"^## Your own data\n(.*?)^## ", text, re.S | re.M)
    assert match, "README has no '## Your own data' section"
    body = match.group(1)
    bash = re.findall(r"```bash\n(.*?)```", body, re.S)
    python = re.findall(r"```python\n(.*?)```", body, re.S)
    return bash, python


def run_shell(block: str, cwd: Path) -> list[str]:
    lines = block.replace("\\\n", " ").splitlines()
    ran = []
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        i += 1
        if not line or line.startswith("#"):
            continue
        heredoc = re.fullmatch(r"cat > (\S+) <<'(\w+)'", line)
        if heredoc:
            end = lines.index(heredoc.group(2), i)
            (cwd / heredoc.group(1)).write_text("\n".join(lines[i:end]) + "\n", encoding="utf-8")
            i = end + 1
            continue
        argv = shlex.split(line)
        assert argv[0] == "gfbgcn", f"unsupported command in the README example: {line}"
        assert main(argv[1:]) == 0, f"README command failed: {line}"
        ran.append(line)
    return ran


def test_readme_own_data_example(tmp_path, monkeypatch, capsys):
    torch.set_num_threads(1)
    bash, python = example_blocks()
    assert bash and python
    monkeypatch.chdir(tmp_path)
    ran = run_shell(bash[0], tmp_path)
    assert any(c.startswith("gfbgcn train") and "--save" in c for c in ran)
    assert any(c.startswith("gfbgcn predict") for c in ran)
    out = capsys.readouterr().out
    assert "row,label,probability,label_2,probability_2" in out
    preds = (tmp_path / "preds.csv").read_text().splitlines()
    assert preds[0] == "row,label,probability" and len(preds) == 17
    exec(compile(python[0], "README.md", "exec"), {})  # noqa: S102 - our own README
    printed = capsys.readouterr().out.splitlines()
    # the first print is ``pred.labels`` of the two example documents: a Python list of labels
    labels = ast.literal_eval(printed[0])
    assert isinstance(labels, list) and len(labels) == 2, printed[0]
    assert set(labels) <= {"sport", "finance"}, labels


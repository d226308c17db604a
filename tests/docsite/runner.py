"""Runs a page's code blocks as a reader would, in one working directory.

What runs (:mod:`docsite.examples` says how a page marks its blocks):

* ``bash``, line by line (``\\`` continues a line; ``#`` starts a comment):
  ``cat > FILE <<'EOF'`` ... ``EOF`` writes the file; ``gfbgcn ...`` runs through
  :func:`gfbgcn.cli.main` in this process (the installed command's parsing, without an
  interpreter start per line) and must exit 0; ``ls`` and ``head`` run as programs; ``curl``
  runs as a program against the page's server (``localhost:8000`` is rewritten to the port the
  server took). Any other command fails: a page cannot show a command nobody ran.
* A block marked ``server``: its one ``gfbgcn serve ...`` line starts ``python -m gfbgcn`` in
  the background with ``--port 0`` added (a free port, read from the line it prints), until
  the page is done.
* ``python``: executed in one namespace per page.
* ``console``: each ``$ gfbgcn ...`` runs in process; what it prints (standard output and
  error) must be the lines shown under it.
* A ``python`` block marked ``signature``: ``Name(arg, ..., key=default)`` is compared with
  ``inspect.signature`` of ``gfbgcn.nn.Name``: names, order, kinds and defaults.
"""

from __future__ import annotations

import ast
import contextlib
import inspect
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from docsite.examples import Block
from gfbgcn.cli import main

ROOT = Path(__file__).resolve().parents[2]
#: What a served page's commands name; rewritten to the server's real port.
DEFAULT_ADDRESS = re.compile(r"\b(localhost|127\.0\.0\.1):8000\b")
#: Programs a bash block may run besides gfbgcn (read-only, or curl against the page's server).
PROGRAMS = ("ls", "head", "curl")


@dataclass
class Page:
    """A page's run: its directory, Python namespace, server and what was printed."""

    cwd: Path
    namespace: dict[str, Any] = field(default_factory=dict)
    server: subprocess.Popen[str] | None = None
    address: str | None = None
    outputs: list[str] = field(default_factory=list)

    def close(self) -> None:
        """Stop the page's server, if it started one."""
        if self.server is not None:
            self.server.terminate()
            self.server.wait(timeout=30)
            self.server = None


def lines_of(code: str) -> list[str]:
    """The block's lines, with ``\\``-continued lines joined."""
    return code.replace("\\\n", " ").splitlines()


def captured(run: Any) -> tuple[Any, str, str]:
    """``(run(), standard output, standard error)`` of ``run`` in this process."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        result = run()
    return result, out.getvalue(), err.getvalue()


def run_gfbgcn(page: Page, argv: list[str], line: str) -> str:
    """One ``gfbgcn`` command in this process; what it printed (it must exit 0)."""
    status, out, err = captured(lambda: main(argv[1:]))
    assert status == 0, f"{line!r} exited {status}: {err.strip()[-2000:]}"
    return out


def run_program(page: Page, argv: list[str], line: str) -> str:
    """``ls``, ``head`` or ``curl`` (against the page's server) as a program."""
    if argv[0] == "curl":
        assert page.address is not None, f"{line!r}: no server runs on this page"
        argv = [DEFAULT_ADDRESS.sub(page.address, arg) for arg in argv]
        argv[1:1] = ["--fail-with-body", "--max-time", "120"]
    done = subprocess.run(argv, cwd=page.cwd, capture_output=True, text=True, timeout=180,
                          check=False)
    assert done.returncode == 0, f"{line!r} exited {done.returncode}: {done.stderr}"
    return done.stdout


def start_server(page: Page, argv: list[str], line: str) -> None:
    """``gfbgcn serve ...`` in the background on a free port, until :meth:`Page.close`."""
    assert argv[:2] == ["gfbgcn", "serve"], f"a server block runs gfbgcn serve, not {line!r}"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT / "src"), *filter(None, [os.environ.get("PYTHONPATH")])])}
    page.server = subprocess.Popen([sys.executable, "-m", "gfbgcn", *argv[1:], "--port", "0"],
                                   cwd=page.cwd, env=env, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 180  # a bound on the start (torch's import), not a timing
    assert page.server.stderr is not None
    for message in page.server.stderr:
        found = re.search(r" on http://(127\.0\.0\.1:\d+): POST /predict", message)
        if found:
            page.address = found.group(1)
            # keep reading its log, so that a full pipe never blocks the server
            threading.Thread(target=page.server.stderr.read, daemon=True).start()
            return
        assert time.monotonic() < deadline, "the server did not start"
    raise AssertionError(f"{line!r} ended before serving (exit {page.server.wait()})")


def run_bash(page: Page, block: Block) -> None:
    lines = lines_of(block.code)
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        i += 1
        heredoc = re.fullmatch(r"cat > (\S+) <<'(\w+)'", line)
        if heredoc:
            end = lines.index(heredoc.group(2), i)
            (page.cwd / heredoc.group(1)).write_text("\n".join(lines[i:end]) + "\n",
                                                      encoding="utf-8")
            i = end + 1
            continue
        argv = shlex.split(line, comments=True)
        if not argv:
            continue
        if block.mark == "server":
            start_server(page, argv, line)
        elif argv[0] == "gfbgcn":
            page.outputs.append(run_gfbgcn(page, argv, line))
        elif argv[0] in PROGRAMS:
            page.outputs.append(run_program(page, argv, line))
        else:
            raise AssertionError(f"{block.page}:{block.line}: the tests cannot run {line!r}")


def run_console(page: Page, block: Block) -> None:
    """Each ``$ gfbgcn ...`` line prints exactly the lines below it (and fails if they are an
    error)."""
    steps = re.split(r"^\$ ", block.code, flags=re.M)
    assert steps[0].strip() == "", f"{block.page}:{block.line}: a console block starts with $"
    for step in steps[1:]:
        command, _, expected = step.partition("\n")
        argv = shlex.split(command)
        assert argv[0] == "gfbgcn", f"{block.page}:{block.line}: cannot run {command!r}"
        status, out, err = captured(lambda args=argv[1:]: main(args))
        printed = (out + err).strip().splitlines()
        assert printed == expected.strip().splitlines(), command
        assert (status != 0) == expected.startswith("error:"), (command, status)


def run_python(page: Page, block: Block) -> None:
    code = compile(block.code, f"{block.page}:{block.line}", "exec")
    _, out, _ = captured(lambda: exec(code, page.namespace))  # noqa: S102 - our own pages
    page.outputs.append(out)


def check_signature(block: Block) -> None:
    """``Name(params)`` as shown equals ``gfbgcn.nn.Name``'s signature (``**kwargs`` aside)."""
    import gfbgcn.nn

    name, _, params = block.code.strip().partition("(")
    shown = ast.parse(f"def f({params.rstrip().removesuffix(')')}): pass").body[0].args
    real = [p for p in inspect.signature(getattr(gfbgcn.nn, name)).parameters.values()
            if p.kind is not p.VAR_KEYWORD]
    positional = [a.arg for a in shown.args]
    keyword = [a.arg for a in shown.kwonlyargs]
    assert [p.name for p in real] == positional + keyword, name
    assert [p.name for p in real if p.kind is p.KEYWORD_ONLY] == keyword, name
    defaults = dict(zip(positional[len(positional) - len(shown.defaults):], shown.defaults))
    defaults.update({a.arg: d for a, d in zip(shown.kwonlyargs, shown.kw_defaults) if d})
    for p in real:
        if p.name in defaults:
            assert ast.literal_eval(defaults[p.name]) == p.default, (name, p.name)
        else:
            assert p.default is p.empty, (name, p.name, "the page shows no default")


def run_block(page: Page, block: Block) -> None:
    """Run one block of the page (a ``not-run`` one is the caller's to count, not to run)."""
    if block.mark == "signature":
        check_signature(block)
    elif block.lang == "bash":
        run_bash(page, block)
    elif block.lang == "python":
        run_python(page, block)
    elif block.lang == "console":
        run_console(page, block)


def tiny_encoder(folder: Path) -> Path:
    """A tiny random sentence-transformers model in ``folder`` (what the encoders page's
    reader downloads; the tests never reach a model hub)."""
    from tests.text.encoder.tinybert import write_plain, write_sentence_transformers

    plain = write_plain(folder.with_name(folder.name + "-plain"))
    write_sentence_transformers(plain, folder)
    shutil.rmtree(plain)
    return folder


def run_page(page: Page, blocks: list[Block], served: Any = None) -> None:
    """Every block that runs, in order, in the page's directory; then ``served(page)`` while
    its server still runs; the server is stopped after."""
    here = os.getcwd()
    os.chdir(page.cwd)
    try:
        for block in blocks:
            if block.runs:
                run_block(page, block)
        if served is not None:
            served(page)
    finally:
        os.chdir(here)
        page.close()

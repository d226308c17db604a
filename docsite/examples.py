"""The code examples of the site's pages (and the README), as the tests that run them read them.

A fenced block's language says what it is:

* ``bash``: commands, run in order in one directory per page (``tests/docsite``);
* ``python``: run in order in one namespace per page, in the same directory;
* ``console``: ``$ command`` lines, each followed by the output it prints, which is compared;
* ``text`` (or no language): equations, file listings, output: not code, not run.

An HTML comment on the line before a fence (invisible on the site) changes how a code block is
treated; nothing else may skip one:

* ``<!-- example: not-run REASON -->``: not run in CI, for one of the reasons of
  :data:`NOT_RUN` (the test counts them per page, so a new one is a visible change);
* ``<!-- example: server -->``: the block starts a server that runs until stopped: the test
  starts it in the background, runs the page's later blocks against it, then stops it;
* ``<!-- example: signature -->``: a ``python`` block showing a class's signature, compared
  with the real one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

#: Why a block may be left out of CI, and what that means.
NOT_RUN = {
    "gpu": "needs a CUDA GPU (CI has none; tests/test_gpu.py covers the GPU paths)",
    "torchrun": "starts several processes or machines under torchrun "
                "(tests/robustness/test_torchrun.py and tests/text/train/test_distributed.py "
                "cover them)",
    "long": "minutes to hours of work: a reproduction or a benchmark on the full data sets, an "
            "installation from scratch",
    "network": "downloads from the internet (CI reaches only package registries)",
    "your-data": "reads a corpus the reader brings (big.jsonl, my.csv)",
    "ci": "what CI itself runs (.ci/run: make test, make docs)",
}
#: Languages of code that is run; every other fence must be ``text`` or have none.
CODE = ("bash", "python", "console")
MARKS = ("not-run", "server", "signature")

FENCE = re.compile(r"^(?P<indent>[ ]*)```(?P<lang>[\w+-]*)[^\n]*\n"
                   r"(?P<code>.*?)^(?P=indent)```[ \t]*$", re.M | re.S)
MARKER = re.compile(r"<!--\s*example:\s*(?P<mark>[\w-]+)(?:\s+(?P<reason>[\w-]+))?\s*-->")


@dataclass(frozen=True)
class Block:
    """One fenced block of a page: where it starts (1-based line), language, code, mark."""

    page: str
    line: int
    lang: str
    code: str
    mark: str | None = None
    reason: str | None = None

    @property
    def runs(self) -> bool:
        """Whether the tests run it (code, and not marked ``not-run``)."""
        return self.lang in CODE and self.mark != "not-run"


def blocks(text: str, page: str = "") -> list[Block]:
    """The fenced blocks of a Markdown page, in order, each with the mark above it."""
    found = []
    for match in FENCE.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        before = text[:match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        marker = MARKER.search(before)
        code = "\n".join(row[len(match["indent"]):] for row in match["code"].splitlines())
        found.append(Block(page, line, match["lang"] or "text", code + "\n",
                           marker["mark"] if marker else None,
                           marker["reason"] if marker else None))
    return found


def problems(text: str, page: str = "") -> list[str]:
    """The page's blocks that break the module docstring's rules, one line each."""
    found = []
    for block in blocks(text, page):
        where = f"{page}:{block.line}"
        if block.lang not in (*CODE, "text"):
            found.append(f"{where}: a ```{block.lang} block: use one of {', '.join(CODE)} "
                         "(run by the tests) or text")
        if block.mark is not None and block.mark not in MARKS:
            found.append(f"{where}: unknown mark {block.mark!r} (one of {', '.join(MARKS)})")
        if block.mark == "not-run" and block.reason not in NOT_RUN:
            found.append(f"{where}: not-run needs a reason, one of {', '.join(NOT_RUN)}")
        if block.mark is not None and block.lang not in CODE:
            found.append(f"{where}: a mark on a block that is not code")
        if block.mark == "signature" and block.lang != "python":
            found.append(f"{where}: a signature is a python block")
    markers = sum(bool(MARKER.match(line.strip())) for line in text.splitlines())
    if markers != sum(b.mark is not None for b in blocks(text, page)):
        found.append(f"{page}: an example mark that is not on the line before a fence")
    return found


def page_name(path: Path, root: Path) -> str:
    """A page's path relative to the repository root, as the tests and errors name it."""
    return path.resolve().relative_to(root.resolve()).as_posix()

"""The files the README, docs/ and the code's docstrings name exist (they pointed at test files
that had moved once; a rename must take its mentions along)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: A repository path of the source or the tests, as prose names it.
NAMED_PATH = re.compile(r"\b((?:src/gfbgcn|tests)/[\w/]+\.(?:py|json))\b")


def _tracked(*patterns: str) -> list[Path]:
    listed = subprocess.run(["git", "ls-files", *patterns], cwd=ROOT, capture_output=True,
                            text=True, check=False).stdout.split()
    return [ROOT / name for name in listed if "/raw/" not in name]


def test_named_source_and_test_files_exist() -> None:
    files = _tracked("README.md", "docs/*.md", "src/*.py", "benchmarks/*.py")
    if not files:  # not a git checkout (an unpacked sdist): nothing to hold the names against
        return
    missing = sorted({f"{path.relative_to(ROOT)}: {name}" for path in files
                      for name in NAMED_PATH.findall(path.read_text(encoding="utf-8"))
                      if not (ROOT / name).exists()})
    assert missing == []

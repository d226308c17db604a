"""Loading a benchmark script as a module in a test (the scripts are not a package)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def load_script(name: str, monkeypatch) -> ModuleType:
    """``benchmarks/NAME.py`` as a module, ``benchmarks/`` on ``sys.path`` for its helpers
    (``_report``, ``vs_linear``) while the test runs."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

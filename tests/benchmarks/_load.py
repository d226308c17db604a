"""Loading a benchmark script as a module in a test (the scripts are not a package)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def load_script(name: str, monkeypatch=None) -> ModuleType:
    """``benchmarks/NAME.py`` as a module, registered in ``sys.modules`` under ``NAME`` (a
    dataclass there looks its module up).  With ``monkeypatch``, ``benchmarks/`` is on
    ``sys.path`` for the script's own imports (``_report``, ``vs_linear``) and the module is
    unregistered again after the test; without it, both stay for the test session (the
    script's imports then work whichever test ran first)."""
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    if monkeypatch is None:  # for the rest of the session: the script's own imports too
        if str(BENCHMARKS) not in sys.path:
            sys.path.insert(0, str(BENCHMARKS))
        sys.modules[name] = module
    else:
        monkeypatch.syspath_prepend(str(BENCHMARKS))
        monkeypatch.setitem(sys.modules, name, module)
    spec.loader.exec_module(module)
    return module

"""``benchmarks/candidate_ceiling.py`` on the committed records: the ceiling (the candidate
best on test) is never below the chosen candidate or the (f) model inside the search."""

from __future__ import annotations

import importlib.util
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def test_the_ceiling_bounds_every_candidate(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    spec = importlib.util.spec_from_file_location("candidate_ceiling",
                                                  BENCHMARKS / "candidate_ceiling.py")
    assert spec is not None and spec.loader is not None
    ceiling = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ceiling)
    checked = 0
    for ds in ceiling.CORPORA:
        if not (ceiling.RAW / f"{ds}_seed0_auto-encoder.json").is_file():
            continue
        chosen, inside, best = ceiling.gaps(ds, 0)
        assert best >= chosen and best >= inside
        assert -1.0 < chosen < 1.0  # differences of accuracies
        checked += 1
    assert checked >= 8  # the eight shared corpora are recorded

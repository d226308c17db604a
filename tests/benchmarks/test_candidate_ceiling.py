"""``benchmarks/candidate_ceiling.py`` on the committed records: the ceiling (the candidate
best on test) is never below the chosen candidate or the (f) model inside the search."""

from __future__ import annotations

from tests.benchmarks._load import load_script


def test_the_ceiling_bounds_every_candidate(monkeypatch):
    ceiling = load_script("candidate_ceiling", monkeypatch)
    checked = 0
    for ds in ceiling.CORPORA:
        if not (ceiling.RAW / f"{ds}_seed0_auto-encoder.json").is_file():
            continue
        chosen, inside, best = ceiling.gaps(ds, 0)
        assert best >= chosen and best >= inside
        assert -1.0 < chosen < 1.0  # differences of accuracies
        checked += 1
    assert checked >= 8  # the eight shared corpora are recorded
